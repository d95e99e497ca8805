"""SECURITY.md's promises name the tests that hold them: every row of the sandbox's table
names at least one, and every test named anywhere in the file exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
TEXT = (ROOT / "SECURITY.md").read_text(encoding="utf-8")
TESTS = {path.name: path.read_text() for path in (ROOT / "tests").rglob("test_*.py")}


def defined(name: str, file: str | None = None) -> bool:
    sources = [TESTS.get(file, "")] if file else TESTS.values()
    return any(re.search(rf"^def {name}\(", source, re.M) for source in sources)


def test_every_row_of_the_sandbox_table_names_a_test() -> None:
    rows = [line for line in TEXT.splitlines() if line.strip().startswith("| ")]
    sandbox_rows = [row for row in rows if row.count("|") == 5 and "---" not in row]
    assert len(sandbox_rows) >= 10
    for row in sandbox_rows[1:]:  # after the header
        assert re.search(r"`[^`]*test_\w+[^`]*`", row.rsplit("|", 2)[-2]), row


def test_every_named_test_exists() -> None:
    files = set(re.findall(r"(?<![\w/])((?:tests/[\w/]+/)?test_\w+\.py)", TEXT))
    for file in files:
        assert (ROOT / file).exists() or Path(file).name in TESTS, file
    for file, name in re.findall(r"(test_\w+\.py)::(\w+)", TEXT):
        assert defined(name, file), f"{file}::{name}"
    for name in re.findall(r"`::(test_\w+)`|\(`(test_\w+)`", TEXT):
        assert defined(next(n for n in name if n)), name
