"""`make bench`: the environment step's time, cold and from the cache, per corpus repository.

For each repository of ``tests/corpus/repos/`` (unpacked and committed as a task's base
commit), the real environment step runs in the worker's sandbox (the shipped settings of
``config/agents.yml``, PATH without ``python``): first cold, in an empty ``envs``
directory under /tmp (the detected setup command, with the network), then again for
another task of the same repository (from the cache). A first row shows the step's own
cost, without the index: a configured ``true`` (the virtual environment alone).

    python -m bench.environments [--json]

Without the package index the detected rows are skipped and say why.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from tests.index import unreachable
from workers.agents.environment import EnvironmentStep, SetupRequest
from workers.agents.sandbox import Sandbox, SandboxUnavailable, open_sandbox
from workers.defaults import load_default_agent_settings
from workers.engine.statesync import extract_safely
from workers.gitops.runner import Git

REPOS = Path(__file__).parent.parent / "tests" / "corpus" / "repos"


@dataclass(frozen=True)
class Row:
    repo: str
    setup: str
    ok: bool
    cold_s: float  # the whole step, cold (clone, virtual environment, setup command)
    setup_s: float  # the setup command's own run
    cached_s: float  # the step again, for another task: from the cache
    cached: bool


def checkout_of(archive: Path, parent: Path) -> tuple[Path, str]:
    with tarfile.open(archive) as opened:
        extract_safely(opened, parent)
    root = next(parent.iterdir())
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", *identity, *args], cwd=root, check=True, capture_output=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, check=True, capture_output=True)
    return root, head.stdout.decode().strip()


def measure(sandbox: Sandbox, archive: Path, command: str | None, network: bool) -> Row:
    work = Path(tempfile.mkdtemp(prefix="agentium-bench-envs-", dir="/tmp"))
    try:
        checkout, base = checkout_of(archive, work / "repo")
        (work / "git-home").mkdir()
        settings = load_default_agent_settings().environment
        step = EnvironmentStep(sandbox, Git(work / "git-home"), work / "envs", settings)
        name = archive.name.removesuffix(".tar.gz")
        started = time.perf_counter()
        cold = step.ensure(SetupRequest(name, checkout, base, command, network, f"{name}#1"))
        cold_s = time.perf_counter() - started
        started = time.perf_counter()
        again = step.ensure(SetupRequest(name, checkout, base, command, network, f"{name}#2"))
        cached_s = time.perf_counter() - started
        outcome = cold.outcome
        return Row(name, outcome.command, outcome.ok, cold_s, outcome.seconds, cached_s,
                   again.outcome.cached)  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(rows: list[Row], skipped: str | None) -> None:
    print("environment step per corpus repository (cold: empty cache; cached: another task)")
    print(f"{'repository':<16} {'ok':<4} {'cold s':>7} {'setup s':>8} {'cached s':>9}  setup")
    for row in rows:
        status = "ok" if row.ok else "FAIL"
        cached = f"{row.cached_s:9.3f}" if row.cached else f"{'(rebuilt)':>9}"
        print(
            f"{row.repo:<16} {status:<4} {row.cold_s:7.1f} {row.setup_s:8.1f} {cached}  "
            f"{row.setup[:70]}"
        )
    if skipped:
        print(f"detected setups skipped: {skipped}")


def main(argv: list[str] | None = None) -> int:
    as_json = "--json" in (sys.argv[1:] if argv is None else argv)
    settings = load_default_agent_settings().sandbox
    try:
        sandbox = open_sandbox(settings)
    except SandboxUnavailable as error:
        print(f"bench.environments: skipped, no sandbox: {error}")
        return 0
    archives = sorted(REPOS.glob("*.tar.gz"))
    rows = [measure(sandbox, archives[0], "true", network=False)]
    rows[0] = Row(**{**asdict(rows[0]), "repo": "(no setup)"})
    skipped = unreachable(sandbox)
    if skipped is None:
        rows += [measure(sandbox, archive, None, network=True) for archive in archives]
    if as_json:
        print(json.dumps({"rows": [asdict(r) for r in rows], "skipped": skipped}, indent=2))
    else:
        report(rows, skipped)
    return 0 if all(row.ok and row.cached for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
