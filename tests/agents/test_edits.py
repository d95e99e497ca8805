"""Edits that keep files intact: line endings, encodings, hunks, syntax checks, glob."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.agents.test_tools import box, call

CRLF_SOURCE = b"def one():\r\n    return 1\r\n\r\n\r\ndef two():\r\n    return 2\r\n"
LATIN1_SOURCE = "# caf\xe9 cr\xe8me\n[section]\nname = G\xf6del\nother = \xc5ngstr\xf6m\n"


def test_a_multi_line_edit_in_a_crlf_file_matches_and_keeps_crlf(checkout: Path) -> None:
    (checkout / "win.py").write_bytes(CRLF_SOURCE)
    tools = box(checkout)
    shown = call(tools, "read_file", path="win.py").content
    assert "CRLF line endings" in shown.splitlines()[0]
    assert "\r" not in shown
    old = "def two():\n    return 2\n"  # as read_file shows it
    new = "def two():\n    # two\n    return 2\n"
    result = call(tools, "edit_file", path="win.py", old_string=old, new_string=new)
    assert not result.is_error, result.content
    after = (checkout / "win.py").read_bytes()
    assert after == CRLF_SOURCE.replace(b"    return 2\r\n", b"    # two\r\n    return 2\r\n")
    assert b"\n" not in after.replace(b"\r\n", b"")  # no bare LF introduced


def test_a_latin1_file_is_edited_and_byte_identical_elsewhere(checkout: Path) -> None:
    original = LATIN1_SOURCE.encode("latin-1")
    (checkout / "legacy.ini").write_bytes(original)
    tools = box(checkout)
    shown = call(tools, "read_file", path="legacy.ini").content
    assert "name = G\xf6del" in shown  # decoded, not replacement characters
    assert "encoding cp1252" in shown.splitlines()[0]
    result = call(
        tools,
        "edit_file",
        path="legacy.ini",
        old_string="name = G\xf6del",
        new_string="name = Erd\xf6s",
    )
    assert not result.is_error, result.content
    after = (checkout / "legacy.ini").read_bytes()
    assert after == original.replace("G\xf6del".encode("latin-1"), "Erd\xf6s".encode("latin-1"))
    assert "\ufffd".encode() not in after


def test_characters_the_encoding_lacks_are_refused_and_the_file_unchanged(
    checkout: Path,
) -> None:
    original = LATIN1_SOURCE.encode("latin-1")
    (checkout / "legacy.ini").write_bytes(original)
    result = call(
        box(checkout), "edit_file", path="legacy.ini", old_string="other", new_string="other \u2192"
    )
    assert result.is_error
    assert "cp1252" in result.content and "'\u2192'" in result.content
    assert (checkout / "legacy.ini").read_bytes() == original


def test_binary_and_undecodable_files_are_refused_with_a_clear_message(checkout: Path) -> None:
    (checkout / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (checkout / "odd.dat").write_bytes(b"text \xff\xfe\x01\x02 more")
    tools = box(checkout)
    for name in ("logo.png", "odd.dat"):
        before = (checkout / name).read_bytes()
        edit = call(tools, "edit_file", path=name, old_string="text", new_string="x")
        read = call(tools, "read_file", path=name)
        assert edit.is_error and read.is_error
        assert "not shown or edited" in edit.content
        assert (checkout / name).read_bytes() == before
    assert "binary file" in call(tools, "read_file", path="logo.png").content


def test_a_byte_order_mark_is_kept(checkout: Path) -> None:
    (checkout / "bom.txt").write_bytes(b"\xef\xbb\xbfhello\nworld\n")
    result = call(box(checkout), "edit_file", path="bom.txt", old_string="world", new_string="you")
    assert not result.is_error
    assert (checkout / "bom.txt").read_bytes() == b"\xef\xbb\xbfhello\nyou\n"


def test_write_file_over_a_crlf_file_keeps_crlf(checkout: Path) -> None:
    (checkout / "win.txt").write_bytes(b"a\r\nb\r\n")
    result = call(box(checkout), "write_file", path="win.txt", content="x\ny\nz\n")
    assert "kept its CRLF line endings" in result.content
    assert (checkout / "win.txt").read_bytes() == b"x\r\ny\r\nz\r\n"


def test_the_edit_answer_shows_the_changed_lines_with_numbers(checkout: Path) -> None:
    lines = [f"value_{n} = {n}" for n in range(1, 21)]
    (checkout / "values.py").write_text("\n".join(lines) + "\n")
    result = call(
        box(checkout),
        "edit_file",
        path="values.py",
        old_string="value_10 = 10\n",
        new_string="value_10 = 10\nvalue_10b = 10.5\n",
    )
    answer = result.content.splitlines()
    assert answer[0] == "edited values.py: 1 replacement(s)"
    assert answer[1] == "lines 10-11 now read (with the lines around them):"
    assert answer[2:10] == [
        "     7\tvalue_7 = 7",
        "     8\tvalue_8 = 8",
        "     9\tvalue_9 = 9",
        ">   10\tvalue_10 = 10",
        ">   11\tvalue_10b = 10.5",
        "    12\tvalue_11 = 11",
        "    13\tvalue_12 = 12",
        "    14\tvalue_13 = 13",
    ]
    assert answer[-1] == "Python syntax check: the file parses."


def test_overwriting_a_file_shows_what_changed_in_it(checkout: Path) -> None:
    """write_file over an existing file answers like edit_file: the changed lines with
    their numbers and context, so a whole-file rewrite that dropped something shows it."""
    lines = [f"value_{n} = {n}" for n in range(1, 21)]
    (checkout / "values.py").write_text("\n".join(lines) + "\n")
    lines[9] = "value_10 = 'ten'"
    del lines[15]
    result = call(box(checkout), "write_file", path="values.py", content="\n".join(lines) + "\n")
    answer = result.content.splitlines()
    assert answer[0] == "wrote values.py (251 characters; 2 places changed)"
    assert answer[1] == "lines 10-10 now read (with the lines around them):"
    assert ">   10\tvalue_10 = 'ten'" in answer
    assert "text removed at line 16; the lines around it now read:" in answer
    assert "    16\tvalue_17 = 17" in answer
    assert answer[-1] == "Python syntax check: the file parses."


def test_writing_a_new_file_or_the_same_text_says_so(checkout: Path) -> None:
    tools = box(checkout)
    made = call(tools, "write_file", path="new.txt", content="a\nb\n").content
    assert made == "wrote new.txt (4 characters; a new file of 2 lines)"
    same = call(tools, "write_file", path="new.txt", content="a\nb\n").content
    assert same == "wrote new.txt (4 characters; the same text as before: nothing changed)"


def test_a_python_edit_that_breaks_the_syntax_is_reported_not_refused(checkout: Path) -> None:
    (checkout / "ok.py").write_text("def f():\n    return 1\n")
    result = call(
        box(checkout), "edit_file", path="ok.py", old_string="return 1", new_string="return (1"
    )
    assert not result.is_error
    assert "Python syntax check: line " in result.content
    assert "(it parsed before this change)" in result.content
    assert (checkout / "ok.py").read_text() == "def f():\n    return (1\n"


def test_replace_all_shows_each_place(checkout: Path) -> None:
    (checkout / "many.txt").write_text("a\nX\nb\nX\nc\nX\nd\nX\ne\n")
    result = call(
        box(checkout),
        "edit_file",
        path="many.txt",
        old_string="X",
        new_string="Y",
        replace_all=True,
    )
    assert result.content.startswith("edited many.txt: 4 replacement(s)")
    for line in (2, 4, 6):
        assert f"lines {line}-{line} now read" in result.content
    assert "[... and 1 more replacement(s) not shown]" in result.content
    assert (checkout / "many.txt").read_text() == "a\nY\nb\nY\nc\nY\nd\nY\ne\n"


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("*.py", ["src/iniconfig/__init__.py", "src/iniconfig/_parse.py"]),
        ("src/**/_*.py", ["src/iniconfig/__init__.py", "src/iniconfig/_parse.py"]),
        ("testing/test_*.py", ["testing/test_iniconfig.py"]),
        ("*.nothing", []),
    ],
)
def test_glob_finds_files_by_pattern(checkout: Path, pattern: str, expected: list[str]) -> None:
    found = call(box(checkout), "glob", pattern=pattern).content.splitlines()
    if not expected:
        assert found == ["no matches"]
    for path in expected:
        assert path in found
    assert all(".git/" not in line for line in found)


def test_glob_refuses_patterns_out_of_the_checkout(checkout: Path) -> None:
    for pattern in ("../*", "/etc/*"):
        assert call(box(checkout), "glob", pattern=pattern).is_error


def test_a_fifo_is_neither_read_nor_written(checkout: Path) -> None:
    os.mkfifo(checkout / "pipe")
    tools = box(checkout)
    assert call(tools, "write_file", path="pipe", content="x").is_error  # would block
    assert call(tools, "read_file", path="pipe").is_error
