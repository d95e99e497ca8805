"""This Python, made usable inside the sandbox for the tests and the benchmarks.

The agents' commands run inside the task's environment, which the environment step sets
up (``workers/agents/environment``). Without the package index the tests cannot let it
install pytest, so they give the step a ``setup_command`` (:func:`offline_setup_command`)
that adds this interpreter's site-packages, where pytest is, to the environment's virtual
environment with a ``.pth`` file. The sandbox shows only the system directories, so the
virtualenv and every directory its ``python`` links through (``pyvenv.cfg``'s ``home``, the
base interpreter) are bound read-only (:func:`python_paths`).
"""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

from workers.agents.settings import SandboxSettings

PTH = "agentium-tests.pth"


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


def site_packages() -> Path:
    return Path(sysconfig.get_paths()["purelib"]).resolve()


def offline_setup_command(*, plugins: bool = True) -> str:
    """A ``setup_command`` that needs no network: the environment's ``python`` (the virtual
    environment the step made) gets this interpreter's site-packages on its path.

    ``plugins=False``: pytest loads none of this interpreter's plugins (pytest-asyncio,
    hypothesis, ...) by itself, as in an environment made for the repository alone: a
    repository whose pytest settings turn warnings into errors (python-slugify) would
    otherwise stop at pytest-asyncio's warning about its own settings."""
    lines = str(site_packages()) + chr(10)
    if not plugins:  # an `import` line of a .pth file runs when python starts
        lines += "import os; os.environ.update(PYTEST_DISABLE_PLUGIN_AUTOLOAD=str(1))" + chr(10)
    code = (
        "import pathlib, sysconfig; "
        f"pathlib.Path(sysconfig.get_paths()['purelib'], {PTH!r})"
        f".write_text({lines!r})"
    )
    return f'python -c "{code}"'
