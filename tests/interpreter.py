"""This Python, made runnable inside the sandbox for the tests and the benchmarks.

The tests run the repositories' own test suites with the bot's virtualenv first on the
sandbox's PATH (issue 17 gives each task an environment of its own instead). The sandbox
shows only the system directories, so the virtualenv and every directory its ``python``
links through (``pyvenv.cfg``'s ``home``, the base interpreter) are bound read-only.
"""

from __future__ import annotations

import sys
from pathlib import Path

from workers.agents.settings import SandboxSettings


def python_paths(settings: SandboxSettings | None = None) -> tuple[Path, ...]:
    """The directories to bind read-only, outside the system directories."""
    system = [Path(p) for p in (settings or SandboxSettings()).system_paths]
    found = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}
    hop = Path(sys.executable)
    while hop.is_symlink():  # .venv/bin/python -> python3 -> <home>/python3 -> ...
        hop = hop.parent / hop.readlink()
        found.add(hop.parent.resolve())
    outside = {p for p in found if not any(p.is_relative_to(s) for s in system)}
    return tuple(
        sorted(p for p in outside if not any(p.is_relative_to(o) and p != o for o in outside))
    )
