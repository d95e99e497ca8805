"""The grader on the shipped iniconfig instances, in the environment step's environment
(set up offline), in the stock sandbox: a base that fails its hidden tests, a reference fix
that passes them, a fix that breaks a PASS_TO_PASS test, an agent's edit of the hidden test
file, a test patch that does not apply."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.conftest import git, needs_bwrap
from tests.eval.conftest import AUTHOR, GradeAt, by_id, commit_edit, commit_patch, made
from workers.eval.grade import passed_tests, patched_files
from workers.eval.instance import Suite

pytestmark = [needs_bwrap]
INIT = "src/iniconfig/__init__.py"


def test_the_base_is_not_resolved_and_the_reference_fix_is(
    suite: Suite, grade_at: GradeAt, tmp_path: Path
) -> None:
    instance = by_id(suite, "iniconfig-semicolon-comments")
    root, tool = made(instance, tmp_path / "repo")
    base = grade_at(instance, root, instance.base_commit)
    assert not base.resolved and not base.error
    assert base.still_failing == list(instance.fail_to_pass)
    assert base.broken == []
    assert len(instance.fail_to_pass) == 5 and len(instance.pass_to_pass) == 38

    fixed = grade_at(instance, root, commit_patch(root, tool, instance.patch, "fix"))
    assert fixed.resolved, fixed.log_tail
    assert fixed.still_failing == [] and fixed.broken == []
    assert set(fixed.pass_to_pass) == set(instance.pass_to_pass)
    assert git(root, "status", "--porcelain") == ""  # graded in a worktree of its own
    assert len(git(root, "worktree", "list").splitlines()) == 1


def test_a_fix_that_breaks_a_pass_to_pass_test_is_not_resolved(
    suite: Suite, grade_at: GradeAt, tmp_path: Path
) -> None:
    instance = by_id(suite, "iniconfig-section-len")
    root, tool = made(instance, tmp_path / "repo")
    commit_patch(root, tool, instance.patch, "fix")
    head = commit_edit(root, INIT, '"iscommentline"]', '"iscommentline", "SectionWrapper"]')
    graded = grade_at(instance, root, head)
    assert not graded.resolved
    assert graded.still_failing == []
    assert graded.broken == ["testing/test_iniconfig.py::test_api_import"]


def test_a_fix_that_breaks_a_pass_to_pass_subtest_is_not_resolved(
    suite: Suite, grade_slugify: GradeAt, tmp_path: Path
) -> None:
    """python-slugify's test_release.py checks with unittest subtests; pytest 9 reports a
    test whose subtests failed PASSED (after SUBFAILED lines): it is broken all the same.
    A new option in the CLI's namespace breaks test_cli_preserves_legacy_default_shape."""
    instance = by_id(suite, "slugify-cli-bad-regex")
    root, tool = made(instance, tmp_path / "repo")
    commit_patch(root, tool, instance.patch, "fix")
    anchor = '    input_group.add_argument("--stdin", '
    extra = '    input_group.add_argument("--extra", action="store_true")\n'
    head = commit_edit(root, "slugify/__main__.py", anchor, extra + anchor)
    graded = grade_slugify(instance, root, head)
    assert not graded.resolved
    assert graded.still_failing == []
    shape = "tests/test_release.py::ReleaseRegressionTests::test_cli_preserves_legacy_default_shape"
    assert graded.broken == [shape]
    assert "= 2 failed, 142 passed in " in graded.log_tail  # its two subtests


def test_the_hidden_tests_replace_the_agents_edits_of_their_file(
    suite: Suite, grade_at: GradeAt, tmp_path: Path
) -> None:
    """An agent that deleted a test from the file the test patch touches does not skip
    it: the file is taken back to the base commit before the hidden tests are applied."""
    instance = by_id(suite, "iniconfig-utf8-bom")
    root, tool = made(instance, tmp_path / "repo")
    commit_patch(root, tool, instance.patch, "fix")
    tests = root / "testing" / "test_iniconfig.py"
    text = tests.read_text()
    start = text.index("def test_api_import")
    tests.write_text(text[:start] + "def test_mine() -> None:\n    assert False\n")
    git(root, *AUTHOR, "commit", "-qam", "agent's own tests")
    head = git(root, "rev-parse", "HEAD").strip()
    graded = grade_at(instance, root, head)
    assert graded.resolved, graded.log_tail


def test_a_test_patch_that_does_not_apply_is_an_error(
    suite: Suite, grade_at: GradeAt, tmp_path: Path
) -> None:
    instance = by_id(suite, "iniconfig-section-len")
    root, _ = made(instance, tmp_path / "repo")
    stale = "diff --git a/README.rst b/README.rst\n--- a/README.rst\n+++ b/README.rst\n"
    stale += "@@ -1,1 +1,1 @@\n-not the first line\n+x\n"
    broken = instance.model_copy(update={"test_patch": stale})
    graded = grade_at(broken, root, instance.base_commit)
    assert not graded.resolved
    assert graded.error.startswith("the test patch does not apply: git apply failed")


def test_pytest_reports_are_read_per_test_id() -> None:
    report = "\n".join(
        [
            "PASSED t.py::test_a[ spaced - id ]",
            "FAILED t.py::test_b - AssertionError: x - y",
            "PASSED t.py::test_c",
            "XPASS t.py::test_d - reason",
            "ERROR t.py::test_e - fixture",
            "PASSED t.py::test_not_asked",
        ]
    )
    wanted = ["t.py::test_a[ spaced - id ]", "t.py::test_b", "t.py::test_c", "t.py::test_d",
              "t.py::test_e", "t.py::test_missing"]  # fmt: skip
    assert passed_tests(report, wanted) == {"t.py::test_a[ spaced - id ]", "t.py::test_c"}


def test_a_test_whose_subtests_fail_is_not_passing() -> None:
    """pytest 9 reports a unittest test whose subtests failed as PASSED, after a
    SUBFAILED line per failed subtest (pytest-subtests: SUBFAIL); such a test does not pass."""
    report = "\n".join(
        [
            "SUBFAILED(argv=[]) t.py::Case::test_shape",
            "SUBFAILED(argv=['Hello', '--no-lowercase']) t.py::Case::test_shape - AssertionError",
            "PASSED t.py::Case::test_shape",
            "SUBFAILED[a message] (n=1) t.py::test_b[x - y] - boom",
            "PASSED t.py::test_b[x - y]",
            "SUBFAIL t.py::test_c - old plugin",
            "PASSED t.py::test_c",
            "SUBPASSED(n=2) t.py::test_d",
            "PASSED t.py::test_d",
            "PASSED t.py::Case::test_shape_2",
        ]
    )
    wanted = ["t.py::Case::test_shape", "t.py::test_b[x - y]", "t.py::test_c", "t.py::test_d",
              "t.py::Case::test_shape_2"]  # fmt: skip
    assert passed_tests(report, wanted) == {"t.py::test_d", "t.py::Case::test_shape_2"}


@pytest.mark.parametrize(
    "patch, files",
    [
        ("diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n", ["x.py"]),
        ("diff --git a/old.py b/new.py\nrename from old.py\n", ["old.py", "new.py"]),
        ("diff --git a/t/a.py b/t/a.py\n...\ndiff --git a/t/b.py b/t/b.py\n", ["t/a.py", "t/b.py"]),
    ],
)
def test_the_files_a_test_patch_touches(patch: str, files: list[str]) -> None:
    assert patched_files(patch) == files
