"""Grading: the hidden tests on the task's branch, in the instance's environment.

A worktree of the branch's head (never the agents' checkout) gets the test files the test
patch touches back as they were at the base commit (the agents may have edited them, as
SWE-bench's harness assumes too), then the test patch; pytest runs exactly the named tests
in the sandbox, inside the task's environment, and its report says which passed.
Resolved = every FAIL_TO_PASS test passes and every PASS_TO_PASS test still does.

The test ids are pytest node ids (SWE-bench's for Python repositories); a test pytest does
not report as passed (failed, errored, skipped, not found) counts as not passing, and so
does a test with a failed subtest (pytest 9 reports such a unittest test PASSED after one
``SUBFAILED`` line per failed subtest).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from workers.agents.sandbox import Sandbox
from workers.eval.instance import Instance
from workers.eval.source import apply_patch
from workers.gitops.runner import Git, GitError

REPORT = ".agentium-grade.log"  # in the grading worktree, read after the run
_PATCHED = re.compile(r"^diff --git a/(\S+) b/(\S+)$", re.MULTILINE)
_STATUS = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (.+)$", re.MULTILINE)
# pytest 9: "SUBFAILED[msg] (k=v) <id> - message"; the pytest-subtests plugin: "SUBFAIL ..."
_SUBFAILED = re.compile(r"^SUBFAIL(?:ED)?\b(.*)$", re.MULTILINE)
PYTEST = "python -m pytest -p no:cacheprovider -rfEpsxX --tb=no --color=no"
TAIL_CHARS = 2000


@dataclass(frozen=True)
class Grade:
    resolved: bool
    fail_to_pass: dict[str, bool] = field(default_factory=dict)
    pass_to_pass: dict[str, bool] = field(default_factory=dict)
    error: str = ""  # why the tests could not run (a test patch that does not apply)
    log_tail: str = ""

    @property
    def still_failing(self) -> list[str]:
        return [test for test, ok in self.fail_to_pass.items() if not ok]

    @property
    def broken(self) -> list[str]:
        return [test for test, ok in self.pass_to_pass.items() if not ok]


def patched_files(patch: str) -> list[str]:
    """The files a unified git diff touches (both sides of a rename)."""
    found: dict[str, None] = {}
    for old, new in _PATCHED.findall(patch):
        found[old] = None
        found[new] = None
    return list(found)


def passed_tests(report: str, wanted: Iterable[str]) -> set[str]:
    """The wanted ids pytest reported PASSED (an XPASS is not a pass: strict or not, the
    test was expected to fail)."""
    wanted = set(wanted)
    passed: set[str] = set()
    for status, rest in _STATUS.findall(report):
        test = rest if rest in wanted else rest.split(" - ", 1)[0]
        if status == "PASSED" and test in wanted:
            passed.add(test)
    return passed - failed_subtests(report, wanted)


def failed_subtests(report: str, wanted: Iterable[str]) -> set[str]:
    """The wanted ids with a failed subtest (the line names the id after the subtest's
    description, which may hold spaces: the id is matched whole, at the end of the line or
    before the message's `` - ``)."""
    lines = _SUBFAILED.findall(report)
    return {
        test
        for test in wanted
        if any(line.endswith(f" {test}") or f" {test} - " in line for line in lines)
    }


def pytest_command(tests: Iterable[str]) -> str:
    ids = " ".join(shlex.quote(test) for test in tests)
    return f"{PYTEST} {ids} > {REPORT} 2>&1"


@dataclass(frozen=True)
class Grader:
    git: Git
    # The sandbox of a tree inside the instance's environment (Environment.confine), asked
    # once the worktree exists: its variables depend on the tree's layout (``src/``).
    sandbox_for: Callable[[Path], Sandbox]

    def grade(self, instance: Instance, repo: Path, head: str, workdir: Path) -> Grade:
        """Grade ``head`` of ``repo`` in a new worktree at ``workdir`` (removed after)."""
        self.git.run("worktree", "add", "-q", "--detach", str(workdir), head, cwd=repo)
        try:
            return self._grade(instance, workdir)
        finally:
            self.git.run("worktree", "remove", "--force", str(workdir), cwd=repo, check=False)
            self.git.run("worktree", "prune", cwd=repo, check=False)

    def _grade(self, instance: Instance, tree: Path) -> Grade:
        try:
            self._hidden_tests(instance, tree)
        except GitError as error:
            return Grade(resolved=False, error=f"the test patch does not apply: {error}")
        tests = list(dict.fromkeys((*instance.fail_to_pass, *instance.pass_to_pass)))
        self.sandbox_for(tree).run(pytest_command(tests), tree)
        report_file = tree / REPORT
        report = report_file.read_text(errors="replace") if report_file.is_file() else ""
        passed = passed_tests(report, tests)
        f2p = {test: test in passed for test in instance.fail_to_pass}
        p2p = {test: test in passed for test in instance.pass_to_pass}
        resolved = all(f2p.values()) and all(p2p.values())
        return Grade(resolved, f2p, p2p, log_tail=report[-TAIL_CHARS:])

    def _hidden_tests(self, instance: Instance, tree: Path) -> None:
        for name in patched_files(instance.test_patch):
            at_base = self.git.run(
                "cat-file", "-e", f"{instance.base_commit}:{name}", cwd=tree, check=False
            )
            if at_base.returncode == 0:
                self.git.run("checkout", "-q", instance.base_commit, "--", name, cwd=tree)
            elif (tree / name).is_file():
                (tree / name).unlink()
        apply_patch(tree, self.git, instance.test_patch, tree.parent / f"{tree.name}.tests.patch")
