"""Architecture rules that a refactor could silently break."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_web_side_never_imports_worker_code() -> None:
    code = (
        "import sys, bot.app, bot.webhooks, bot.dispatch, bot.events;"
        "leaked = sorted(m for m in sys.modules if m == 'workers' or m.startswith('workers.'));"
        "print(','.join(leaked))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""


def test_no_module_grows_past_300_lines() -> None:
    for package in ("bot", "workers", "config"):
        for path in (ROOT / package).rglob("*.py"):
            lines = len(path.read_text().splitlines())
            assert lines <= 300, f"{path.relative_to(ROOT)} has {lines} lines"
