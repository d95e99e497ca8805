"""The repository's test command: from its settings, or detected from its files."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

PYTEST = "python -m pytest -q -p no:cacheprovider"
_MAKE_TEST_RE = re.compile(r"^test\s*:", re.MULTILINE)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _uses_pytest(checkout: Path) -> bool:
    if (checkout / "pytest.ini").exists() or (checkout / "conftest.py").exists():
        return True
    if "[tool:pytest]" in _read(checkout / "setup.cfg") or "[pytest]" in _read(
        checkout / "tox.ini"
    ):
        return True
    try:
        pyproject = tomllib.loads(_read(checkout / "pyproject.toml"))
    except tomllib.TOMLDecodeError:
        return False
    return "pytest" in pyproject.get("tool", {})


def _pytest(checkout: Path) -> str:
    """pytest; with ``src/`` on the path for a src-layout project that is not installed."""
    return f"PYTHONPATH=src {PYTEST}" if (checkout / "src").is_dir() else PYTEST


def _npm(checkout: Path) -> str | None:
    try:
        package = json.loads(_read(checkout / "package.json") or "{}")
    except json.JSONDecodeError:
        return None
    scripts = package.get("scripts", {}) if isinstance(package, dict) else {}
    return "npm test --silent" if isinstance(scripts, dict) and "test" in scripts else None


def detect_test_command(checkout: Path) -> str | None:
    """The test command a developer would run here, or None when there is no sign of one."""
    if _uses_pytest(checkout):
        return _pytest(checkout)
    if _MAKE_TEST_RE.search(_read(checkout / "Makefile")):
        return "make test"
    npm = _npm(checkout)
    if npm:
        return npm
    if (checkout / "Cargo.toml").exists():
        return "cargo test --offline"
    if (checkout / "go.mod").exists():
        return "go test ./..."
    if (checkout / "tests").is_dir() or (checkout / "testing").is_dir():
        return _pytest(checkout)
    return None


def resolve_test_command(checkout: Path, configured: str | None) -> str | None:
    """``configured`` (the repository's settings) wins; otherwise the detected command."""
    if configured and configured.strip():
        return configured.strip()
    return detect_test_command(checkout)
