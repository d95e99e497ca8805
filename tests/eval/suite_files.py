"""The shipped suite, ``tests/corpus/eval/corpus-repos.jsonl``, built from its folders.

Each instance is a folder of ``tests/corpus/eval/instances/``: ``problem.md`` (the issue),
``base.diff`` (a planted bug, committed on the archive; optional), ``fix.diff`` (the
reference fix), ``tests.diff`` (the hidden tests), ``tests.json`` (FAIL_TO_PASS and
PASS_TO_PASS) and ``meta.yml`` (repo, source, kind). The JSONL is what ``agentium eval``
reads; ``python -m tests.eval.suite_files --write`` rebuilds it (a test checks it is up
to date). The base commit of an archive's instance is computed as the harness computes it.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from workers.eval.source import from_archive
from workers.gitops.runner import Git

SUITE_DIR = Path(__file__).parent.parent / "corpus" / "eval"
INSTANCES = SUITE_DIR / "instances"
SUITE = SUITE_DIR / "corpus-repos.jsonl"


def _read(folder: Path, name: str) -> str:
    path = folder / name
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def base_commit(source: Path, base_patch: str) -> str:
    with tempfile.TemporaryDirectory(prefix="agentium-suite-") as temporary:
        place = Path(temporary)
        (place / "home").mkdir()
        git = Git(place / "home")
        root = from_archive(source, place, git, base_patch)
        return git.run("rev-parse", "HEAD", cwd=root).stdout.strip()


def instance(folder: Path) -> dict[str, Any]:
    meta = yaml.safe_load(_read(folder, "meta.yml"))
    tests = json.loads(_read(folder, "tests.json"))
    base_patch = _read(folder, "base.diff")
    line: dict[str, Any] = {
        "instance_id": folder.name,
        "repo": meta["repo"],
        "base_commit": base_commit(SUITE_DIR / meta["source"], base_patch),
        "problem_statement": _read(folder, "problem.md"),
        "test_patch": _read(folder, "tests.diff"),
        "FAIL_TO_PASS": tests["FAIL_TO_PASS"],
        "PASS_TO_PASS": tests["PASS_TO_PASS"],
        "patch": _read(folder, "fix.diff"),
        "source": meta["source"],
        "kind": meta["kind"],
    }
    if base_patch:
        line["base_patch"] = base_patch
    return line


def build() -> str:
    lines = [json.dumps(instance(f), ensure_ascii=False) for f in sorted(INSTANCES.iterdir())]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    text = build()
    if "--write" in sys.argv:
        SUITE.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
