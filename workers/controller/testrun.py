"""The result of one run of the repository's test command, as figures and failing test ids.

The agents run the command and parse its output (``workers/agents/testparse.py``); the
controller compares runs: the baseline on the base commit against a later run says which
tests newly fail, newly pass or still fail (docs/design.md §10).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class TestRun(BaseModel):
    """Counts are None when the output did not say; ``failing`` names failed and erroring tests."""

    __test__ = False  # not a pytest test class
    model_config = ConfigDict(frozen=True, extra="ignore")

    command: str = ""
    exit_code: int | None = None  # None: killed at the timeout, or it could not start
    passed: int | None = None
    failed: int | None = None
    errors: int | None = None
    skipped: int | None = None
    failing: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def summary(self) -> str:
        """``2 failed, 10 passed, 1 skipped`` (or the exit status when nothing was counted)."""
        parts = [
            f"{count} {word}"
            for count, word in (
                (self.failed, "failed"),
                (self.errors, "errors"),
                (self.passed, "passed"),
                (self.skipped, "skipped"),
            )
            if count
        ]
        if parts:
            return ", ".join(parts)
        if self.exit_code is None:
            return "did not finish"
        return "passed (no counts in the output)" if self.ok else f"exit code {self.exit_code}"


class Comparison(BaseModel):
    """A run against the baseline: which failing tests are new, fixed, or were failing before."""

    model_config = ConfigDict(frozen=True)

    newly_failing: tuple[str, ...] = ()
    newly_passing: tuple[str, ...] = ()
    still_failing: tuple[str, ...] = ()

    def describe(self) -> str:
        lines = []
        for title, ids in (
            ("Newly failing (passed at the base commit)", self.newly_failing),
            ("Newly passing", self.newly_passing),
            ("Still failing (failed at the base commit too)", self.still_failing),
        ):
            if ids:
                lines.append(f"{title}: " + ", ".join(f"`{i}`" for i in ids[:20]))
                if len(ids) > 20:
                    lines[-1] += f" and {len(ids) - 20} more"
        return "\n".join(lines) or "No test changed its result against the base commit."


def compare(baseline: TestRun, current: TestRun) -> Comparison:
    before, now = set(baseline.failing), set(current.failing)
    return Comparison(
        newly_failing=tuple(sorted(now - before)),
        newly_passing=tuple(sorted(before - now)),
        still_failing=tuple(sorted(now & before)),
    )
