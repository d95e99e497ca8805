"""Failures of a phase, normalised and compared: is the task failing the same way again?

A failure is what made an iteration fail: the judge's ITERATE reason, the tests that fail,
an agent error, a wave that did not join. Its text is normalised before comparison (paths,
line numbers, timestamps, hex ids and other numbers stripped, case and spacing folded), so
the same error seen again on another line or at another time compares equal. Two
consecutive failures are *the same failure* when both name failing tests and those tests
are (nearly) the same, or else when their normalised texts are at least 0.8 similar and
long enough to mean something (docs/design.md §9).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from workers.controller.phases import Phase

SIMILAR = 0.8  # normalised messages at least this similar are the same failure
MIN_LENGTH = 30  # shorter normalised messages say too little to compare
MAX_TEXT = 2000  # characters of a failure's text kept in the history
MAX_TESTS = 200  # failing test ids kept per failure

_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\x1b\[[0-9;]*[A-Za-z]"), ""),  # terminal colours
    (
        re.compile(r"\b\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(z|[+-]\d{2}:?\d{2})?"),
        "[time]",
    ),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b"), "[time]"),
    (re.compile(r"\b0x[0-9a-f]+\b"), "[hex]"),
    (re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b"), "[hex]"),
    (re.compile(r"(?:[a-z]:)?(?:[\w.~-]*[/\\])+[\w.-]+"), "[path]"),
    (re.compile(r"\bline \d+"), "line [n]"),
    (re.compile(r":\d+(:\d+)?\b"), ":[n]"),
    (re.compile(r"\b\d+(\.\d+)?(ms|s)?\b"), "[n]"),
    (re.compile(r"\s+"), " "),
)


class FailureKind(StrEnum):
    JUDGE = "judge"  # the judge said ITERATE (its reason)
    TESTS = "tests"  # the test command failed (the failing tests)
    AGENT = "agent"  # an agent could not do its work (its error)
    INFRA = "infra"  # the model's service, git push or GitHub failed
    WAVE = "wave"  # a wave of subtasks did not join or was judged failed


class Failure(BaseModel):
    """One failed attempt of a phase, as the recovery ladder remembers it."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    kind: FailureKind
    phase: Phase
    iteration: int
    text: str = ""
    tests: tuple[str, ...] = ()  # failing test ids, when tests failed
    round: int = 0  # the human review round (0: the task's first run)

    @classmethod
    def of(
        cls,
        kind: FailureKind,
        phase: Phase,
        iteration: int,
        text: str,
        tests: Sequence[str] = (),
        round: int = 0,
    ) -> Failure:
        return cls(
            kind=kind,
            phase=phase,
            iteration=iteration,
            text=text[:MAX_TEXT],
            tests=tuple(sorted(set(tests)))[:MAX_TESTS],
            round=round,
        )

    def what(self) -> str:
        """The failing tests (the first five), or else the text, on one line."""
        if self.tests:
            more = f" and {len(self.tests) - 5} more" if len(self.tests) > 5 else ""
            return "failing tests " + ", ".join(self.tests[:5]) + more
        text = " ".join(self.text.split())
        return text if len(text) <= 300 else text[:299] + "…"

    def describe(self) -> str:
        """One line for prompts and the status: where, the kind, the tests or the text."""
        return f"{self.phase} iteration {self.iteration} ({self.kind}): {self.what()}"


def normalise(text: str) -> str:
    """``text`` without what changes between two runs of the same error."""
    folded = text.lower()
    for pattern, replacement in _RULES:
        folded = pattern.sub(replacement, folded)
    return folded.strip()


def similarity(one: str, other: str) -> float:
    """How alike two messages are once normalised, from 0 to 1."""
    return SequenceMatcher(None, normalise(one), normalise(other), autojunk=False).ratio()


def _overlap(one: Sequence[str], other: Sequence[str]) -> float:
    both, either = set(one) & set(other), set(one) | set(other)
    return len(both) / len(either) if either else 0.0


def same_failure(one: Failure, other: Failure) -> bool:
    """Whether ``other`` repeats ``one``: the same failing tests, or the same message."""
    if one.tests and other.tests:
        return _overlap(one.tests, other.tests) >= SIMILAR
    if one.tests or other.tests:
        return False
    shorter = min(len(normalise(one.text)), len(normalise(other.text)))
    return shorter >= MIN_LENGTH and similarity(one.text, other.text) >= SIMILAR


def repeats(history: Sequence[Failure], phase: Phase) -> int:
    """How many times in a row ``phase`` has just failed the same way (0: no failure yet)."""
    mine = [failure for failure in history if failure.phase is phase]
    if not mine:
        return 0
    count = 1
    for earlier, later in zip(reversed(mine[:-1]), reversed(mine[1:]), strict=True):
        if not same_failure(earlier, later):
            break
        count += 1
    return count
