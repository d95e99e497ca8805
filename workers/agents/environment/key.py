"""The cache key of an environment: the repository's dependency files at the task's base
commit (their git blob ids), the setup command and whether it had the network.

Read with one or two ``git ls-tree`` calls, without checking anything out. Only the
repository's root and its ``requirements/`` and ``.devcontainer/`` folders are read; the
names of ``tests``, ``testing`` and ``src`` count too (they change the detected commands).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from workers.gitops.runner import Git

RECIPE_VERSION = 1  # bump when detection or the setup's layout changes
ROOT_FILES = frozenset(
    {
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "tox.ini",
        "pytest.ini",
        "conftest.py",
        "Pipfile",
        "Pipfile.lock",
        "poetry.lock",
        "pdm.lock",
        "uv.lock",
        "package.json",
        "package-lock.json",
        "npm-shrinkwrap.json",
        "Cargo.toml",
        "Cargo.lock",
        "go.mod",
        "go.sum",
        "Makefile",
        ".devcontainer.json",
    }
)
FOLDERS = ("requirements", ".devcontainer")
NAMED_TREES = ("tests", "testing", "src")
_REQUIREMENTS_RE = re.compile(r".*requirements.*\.txt$")


def _entries(text: str) -> list[tuple[str, str, str]]:
    """``git ls-tree`` lines as (type, object id, path)."""
    found = []
    for line in text.splitlines():
        info, _, path = line.partition("\t")
        parts = info.split()
        if len(parts) == 3:
            found.append((parts[1], parts[2], path))
    return found


def dependency_files(git: Git, checkout: Path, commit: str) -> list[tuple[str, str]]:
    """(path, blob id) of every file that decides the environment; tree names count as
    ``tree``."""
    top = _entries(git.run("ls-tree", commit, cwd=checkout).stdout)
    found = [
        (path, oid)
        for kind, oid, path in top
        if kind == "blob" and (path in ROOT_FILES or _REQUIREMENTS_RE.match(path))
    ]
    found += [(path, "tree") for kind, _, path in top if kind == "tree" and path in NAMED_TREES]
    folders = [f"{path}/" for kind, _, path in top if kind == "tree" and path in FOLDERS]
    if folders:
        inner = git.run("ls-tree", commit, "--", *folders, cwd=checkout).stdout
        found += [(path, oid) for kind, oid, path in _entries(inner) if kind == "blob"]
    return sorted(found)


def environment_key(
    repo: str, files: list[tuple[str, str]], command: str | None, network: bool
) -> str:
    """A hex digest naming the environment these inputs make."""
    data = {
        "version": RECIPE_VERSION,
        "repo": repo.lower(),
        "files": files,
        "command": command,
        "network": network,
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()
