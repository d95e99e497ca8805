"""What happened in one step: the inputs of :func:`workers.controller.transitions.step`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from workers.controller.phases import Role
from workers.controller.testrun import TestRun


@dataclass(frozen=True)
class Start:
    """The task was triggered; runs the first PLAN worker. ``baseline``: the test command's
    run on the base commit (``command`` empty: there is none; None: not taken)."""

    baseline: TestRun | None = None


@dataclass(frozen=True)
class WorkerDone:
    """The worker's final text (not its tool output) and whether it committed anything."""

    text: str
    made_commits: bool = False


@dataclass(frozen=True)
class AssessorDone:
    """The complexity assessor's final text; None when it failed (counts as COMPLEX)."""

    text: str | None


@dataclass(frozen=True)
class ReviewerDone:
    """The reviewer's feedback; ``tests``: the test command's run on the change, if it ran."""

    text: str
    tests: TestRun | None = None


@dataclass(frozen=True)
class JudgeDone:
    """The judge's final text; None when the call gave no text at all (no signal)."""

    text: str | None


@dataclass(frozen=True)
class AgentFailed:
    """An agent could not be run at all (LLM errors after the adapter's retries)."""

    role: Role
    error: str


@dataclass(frozen=True)
class BudgetExceeded:
    """The task went over a budget (tokens, dollars, time) before or during ``role``'s call.

    Ends the task BLOCKED in every phase (DOCS and the assessor included); not resumable.
    ``detail`` carries the figures. ``Role.CONTROLLER`` matches whichever agent is awaited.
    """

    role: Role
    detail: str


@dataclass(frozen=True)
class HumanReview:
    """The batched feedback of one or more PR reviews or review comments (``reviews``: ids).

    Applied only when :func:`workers.controller.review.accepts_review` says so (the task is
    COMPLETE with a PR); until then the caller keeps it queued.
    """

    text: str
    user: str
    reviews: tuple[str, ...] = ()


class Command(StrEnum):
    STOP = "stop"
    RETRY = "retry"
    STATUS = "status"


@dataclass(frozen=True)
class HumanCommand:
    command: Command
    user: str = ""


Outcome = (
    Start
    | WorkerDone
    | AssessorDone
    | ReviewerDone
    | JudgeDone
    | AgentFailed
    | HumanCommand
    | BudgetExceeded
    | HumanReview
)
