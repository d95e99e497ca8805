"""The worker's tools on a real checkout: confinement, reading, searching, editing."""

from __future__ import annotations

from pathlib import Path

import pytest

from workers.agents.llm import ToolCall, ToolResult
from workers.agents.sandbox import Sandbox
from workers.agents.tools import ToolAccess, ToolBox
from workers.agents.workspace import Workspace


def box(
    checkout: Path, sandbox: Sandbox | None = None, access: ToolAccess = ToolAccess.WRITE
) -> ToolBox:
    return ToolBox(Workspace(checkout), sandbox, access, max_chars=5000)


def call(tools: ToolBox, name: str, **arguments: object) -> ToolResult:
    return tools.call(ToolCall(id="toolu_1", name=name, input=dict(arguments)))


@pytest.mark.parametrize(
    "path",
    ["../outside.txt", "src/../../outside.txt", "/etc/passwd", ".git/config", "src/.git/x"],
)
def test_paths_outside_the_checkout_are_refused(checkout: Path, path: str) -> None:
    tools = box(checkout)
    for name, extra in [("read_file", {}), ("write_file", {"content": "x"})]:
        result = call(tools, name, path=path, **extra)
        assert result.is_error
        assert "refused" in result.content
    assert not (checkout.parent / "outside.txt").exists()


def test_symlink_escapes_are_refused(checkout: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    (checkout / "link.txt").symlink_to(secret)
    (checkout / "linkdir").symlink_to(tmp_path)
    tools = box(checkout)
    assert call(tools, "read_file", path="link.txt").is_error
    assert call(tools, "read_file", path="linkdir/secret.txt").is_error
    assert call(tools, "write_file", path="linkdir/new.txt", content="x").is_error
    assert call(tools, "edit_file", path="link.txt", old_string="top", new_string="x").is_error
    assert secret.read_text() == "top secret"
    assert "top secret" not in call(tools, "search", pattern="top secret").content


def test_absolute_path_inside_the_checkout_is_fine(checkout: Path) -> None:
    result = call(box(checkout), "read_file", path=str(checkout / "README.rst"), end_line=2)
    assert not result.is_error


def test_read_with_line_ranges(checkout: Path) -> None:
    result = call(
        box(checkout), "read_file", path="src/iniconfig/__init__.py", start_line=3, end_line=5
    )
    lines = result.content.splitlines()
    assert lines[0].startswith("[src/iniconfig/__init__.py: lines 3-5 of ")
    assert [line.split("\t")[0].strip() for line in lines[1:]] == ["3", "4", "5"]


def test_list_and_search(checkout: Path) -> None:
    tools = box(checkout)
    listing = call(tools, "list_files", path=".", depth=2).content
    assert "src/iniconfig/" in listing
    assert ".git/" not in listing.splitlines()
    hits = call(tools, "search", pattern=r"class IniConfig\b", glob="*.py").content
    assert hits.startswith("src/iniconfig/__init__.py:")


def test_edit_needs_an_exact_unique_string(checkout: Path) -> None:
    tools = box(checkout)
    target = "example.ini"
    original = (checkout / target).read_text()
    missing = call(tools, "edit_file", path=target, old_string="no such text", new_string="x")
    assert missing.is_error and "not found" in missing.content
    first_line = next(line for line in original.splitlines() if line.strip())
    done = call(tools, "edit_file", path=target, old_string=first_line, new_string="[renamed]")
    assert not done.is_error
    assert (checkout / target).read_text() == original.replace(first_line, "[renamed]", 1)


def test_write_creates_directories(checkout: Path) -> None:
    result = call(box(checkout), "write_file", path="docs/new/page.md", content="# Page\n")
    assert not result.is_error
    assert (checkout / "docs/new/page.md").read_text() == "# Page\n"


def test_read_only_access_has_no_writing_tools(checkout: Path) -> None:
    tools = box(checkout, access=ToolAccess.READ)
    assert [s.name for s in tools.specs] == ["list_files", "glob", "read_file", "search"]
    result = call(tools, "write_file", path="x.txt", content="x")
    assert result.is_error
    assert not (checkout / "x.txt").exists()


def test_run_command_in_the_checkout(checkout: Path, sandbox: Sandbox) -> None:
    result = call(box(checkout, sandbox), "run_command", command="ls src")
    assert "iniconfig" in result.content
    assert "exit code 0" in result.content


def test_wrong_argument_types_are_errors_not_crashes(checkout: Path) -> None:
    assert call(box(checkout), "read_file", path=3).is_error
    assert call(box(checkout), "unknown_tool").is_error


def test_long_output_is_cut_for_the_model(checkout: Path, sandbox: Sandbox) -> None:
    result = call(box(checkout, sandbox), "run_command", command="seq 1 5000")
    assert len(result.content) < 5200
    assert "characters cut" in result.content


def test_a_long_command_output_keeps_its_head_and_its_tail(
    checkout: Path, sandbox: Sandbox
) -> None:
    """The first failure's assertion (near the start) and pytest's summary (at the end)
    both reach the model; what is cut is the middle, and the cut is stated."""
    command = "echo 'E   AssertionError: planted'; seq 1 5000; echo '1 failed, 41 passed in 0.1s'"
    content = call(box(checkout, sandbox), "run_command", command=command).content
    assert len(content) < 5200
    head = content.splitlines()[:3]  # the status, maybe the sandbox's own cut, the output
    assert head[0] == "[exit code 0; 23949 bytes of output]"
    assert "E   AssertionError: planted" in head
    assert content.rstrip().endswith("\n4999\n5000\n1 failed, 41 passed in 0.1s")
    assert "characters cut ...]" in content


def test_colour_codes_are_removed_from_what_the_model_reads(
    checkout: Path, sandbox: Sandbox
) -> None:
    """A repository whose pytest settings force colour (python-slugify: --color=yes) would
    fill the output, and its cut, with escape sequences."""
    command = (
        "printf '\\033[31mFAILED\\033[0m t.py::x - \\033[1mboom\\033[0m\\n\\033]0;title\\007ok\\n'"
    )
    content = call(box(checkout, sandbox), "run_command", command=command).content
    assert content.splitlines()[1:] == ["FAILED t.py::x - boom", "ok"]
    assert "\x1b" not in content


def test_a_large_read_says_what_was_left_out_and_how_to_read_it(checkout: Path) -> None:
    (checkout / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 10_001)))
    tools = box(checkout)
    first = call(tools, "read_file", path="big.txt").content
    assert len(first) <= 5000
    header, *rows, footer = first.splitlines()
    last = len(rows)
    assert header == f"[big.txt: lines 1-{last} of 10000]"
    assert rows[-1] == f"{last:6}\tline {last}"
    assert footer.startswith(f"[lines {last + 1}-10000 not shown")
    assert f"read on with start_line={last + 1}]" in footer
    assert "characters cut" not in first  # whole lines, not a cut in the middle
    following = call(tools, "read_file", path="big.txt", start_line=last + 1, end_line=last + 3)
    assert following.content.splitlines()[1:] == [
        f"{n:6}\tline {n}" for n in range(last + 1, last + 4)
    ]


def test_a_very_long_line_is_clipped_with_its_length(checkout: Path) -> None:
    (checkout / "min.js").write_text("x" * 3000 + "\nshort\n")
    content = call(box(checkout), "read_file", path="min.js").content
    assert "[... 1,000 more characters on this line]" in content
    assert content.endswith("     2\tshort")


def test_state_directory_is_readable_not_writable(checkout: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "plan.md").write_text("### Task 1: do it\n")
    tools = ToolBox(Workspace(checkout, readable=(state,)), None, ToolAccess.WRITE, max_chars=5000)
    assert "Task 1" in call(tools, "read_file", path=str(state / "plan.md")).content
    assert call(tools, "write_file", path=str(state / "plan.md"), content="x").is_error
