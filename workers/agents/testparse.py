"""Read a test command's output: counts and the ids of failing tests.

Understands the summaries of pytest, Jest (npm test), Mocha, node's test runner (TAP),
cargo test and go test. Whatever it does not recognise leaves the counts None and the
failing ids empty: the exit code still says whether the run passed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from workers.controller.testrun import TestRun

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_COUNT = r"(\d+) (?:{})"

# pytest: "=== 2 failed, 10 passed, 1 skipped in 0.51s ===" / "FAILED tests/t.py::test_x - ..."
# (pytest 9 adds "143 subtests passed" to the line)
_PYTEST_SUMMARY = re.compile(r"^=*\s*((?:\d+ \w+(?: \w+)?(?:, )?)+) in [\d.]+s", re.MULTILINE)
# A parametrised id may hold spaces and ` - ` inside its brackets (`test_x[a b]`): the id
# ends at the first `]` followed by ` - ` (the message) or the end of the line. A failed
# subtest (pytest 9: "SUBFAILED[msg] (k=v) <id>"; pytest-subtests: "SUBFAIL") names its test.
_PYTEST_WORD = r"(?:FAILED|ERROR|SUBFAIL(?:ED)?(?:\[.*?\])? ?(?:\(.*?\))?)"
_PYTEST_FAILED = re.compile(
    rf"^{_PYTEST_WORD} (\S+?::[^\s\[]+(?:\[.*?\])?|\S+\.py)(?: - |$)", re.MULTILINE
)
# Jest: "Tests:       1 failed, 5 passed, 6 total" / "  ● Suite <sep> test name"
JEST_SEPARATOR = "\u203a"  # the angle quote Jest puts between a suite and a test
_JEST_SUMMARY = re.compile(r"^Tests:\s+(.*\btotal)$", re.MULTILINE)
_JEST_FAILED = re.compile(r"^\s*● (.+?)\s*$", re.MULTILINE)
# Mocha: "  3 passing (12ms)" / "  1 failing" / "  1) Suite\n       test name:"
_MOCHA_PASSING = re.compile(r"^\s*(\d+) passing \(", re.MULTILINE)
_MOCHA_FAILING = re.compile(r"^\s*(\d+) failing$", re.MULTILINE)
_MOCHA_FAILED = re.compile(r"^\s*\d+\) (.+?)\n\s+(.+?):$", re.MULTILINE)
# node --test (TAP): "# pass 5" / "# fail 1" / "not ok 3 - name"
_TAP_COUNT = re.compile(r"^# (pass|fail|skipped|skip) (\d+)$", re.MULTILINE)
_TAP_FAILED = re.compile(r"^\s*not ok \d+ - (.+?)(?: #.*)?$", re.MULTILINE)
# cargo: "test result: FAILED. 5 passed; 1 failed; 0 ignored; ..." / "test a::b ... FAILED"
_CARGO_RESULT = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored", re.M)
_CARGO_FAILED = re.compile(r"^test (\S+) \.\.\. FAILED$", re.MULTILINE)
# go: "--- FAIL: TestFoo (0.00s)" / "--- PASS: TestBar (0.00s)"
_GO_RESULT = re.compile(r"^\s*--- (PASS|FAIL|SKIP): (\S+)", re.MULTILINE)


@dataclass(frozen=True)
class _Found:
    counts: dict[str, int]
    failing: Sequence[str]


def _counts(text: str, words: dict[str, str]) -> dict[str, int]:
    found = {}
    for field, word in words.items():
        match = re.search(_COUNT.format(word), text)
        if match:
            found[field] = int(match[1])
    return found


def _pytest(out: str) -> _Found | None:
    summary = _PYTEST_SUMMARY.findall(out)
    if not summary:
        return None
    words = {"failed": "failed", "passed": "passed", "skipped": "skipped", "errors": "errors?"}
    counts = _counts(summary[-1], words)
    return _Found(counts, _PYTEST_FAILED.findall(out))


def _jest(out: str) -> _Found | None:
    summary = _JEST_SUMMARY.findall(out)
    if not summary:
        return None
    words = {"failed": "failed", "passed": "passed", "skipped": "skipped"}
    names = [name for name in _JEST_FAILED.findall(out) if JEST_SEPARATOR in name]
    return _Found(_counts(summary[-1], words), names)


def _mocha(out: str) -> _Found | None:
    passing = _MOCHA_PASSING.search(out)
    if passing is None:
        return None
    failing = _MOCHA_FAILING.search(out)
    names = [f"{suite} {test}" for suite, test in _MOCHA_FAILED.findall(out)]
    counts = {"passed": int(passing[1]), "failed": int(failing[1]) if failing else 0}
    return _Found(counts, names)


def _tap(out: str) -> _Found | None:
    counts = {word: int(number) for word, number in _TAP_COUNT.findall(out)}
    if "pass" not in counts:
        return None
    skipped = counts.get("skipped", counts.get("skip", 0))
    figures = {"passed": counts["pass"], "failed": counts.get("fail", 0), "skipped": skipped}
    return _Found(figures, _TAP_FAILED.findall(out))


def _cargo(out: str) -> _Found | None:
    results = _CARGO_RESULT.findall(out)
    if not results:
        return None
    passed, failed, ignored = (sum(int(r[i]) for r in results) for i in range(3))
    figures = {"passed": passed, "failed": failed, "skipped": ignored}
    return _Found(figures, _CARGO_FAILED.findall(out))


def _go(out: str) -> _Found | None:
    results = _GO_RESULT.findall(out)
    if not results:
        return None
    by = {kind: [name for k, name in results if k == kind] for kind in ("PASS", "FAIL", "SKIP")}
    figures = {"passed": len(by["PASS"]), "failed": len(by["FAIL"]), "skipped": len(by["SKIP"])}
    return _Found(figures, by["FAIL"])


_PARSERS: tuple[Callable[[str], _Found | None], ...] = (
    _pytest, _jest, _mocha, _tap, _cargo, _go,
)  # fmt: skip


def parse_test_output(command: str, exit_code: int | None, output: str) -> TestRun:
    """The run as figures; the first parser that recognises the output wins."""
    text = _ANSI.sub("", output)
    for parser in _PARSERS:
        found = parser(text)
        if found is not None:
            failing = tuple(dict.fromkeys(found.failing))
            fields = {"command": command, "exit_code": exit_code, **found.counts}
            return TestRun.model_validate({**fields, "failing": failing})
    return TestRun(command=command, exit_code=exit_code)
