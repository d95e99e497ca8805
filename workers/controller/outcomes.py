"""What happened in one step: the inputs of :func:`workers.controller.transitions.step`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from workers.controller.phases import Role
from workers.controller.testrun import TestRun


@dataclass(frozen=True)
class Start:
    """The task was triggered; runs the first PLAN worker. The issue's title and body become
    the goal anchor's intent (workers/controller/anchor.py); ``baseline``: the test
    command's run on the base commit (``command`` empty: there is none; None: not taken)."""

    title: str = ""
    body: str = ""
    baseline: TestRun | None = None


@dataclass(frozen=True)
class BaselineTaken:
    """The test command's run on the base commit, taken beside the first PLAN call (the
    task started with ``Start(baseline=None)``); it may arrive in any phase once started."""

    run: TestRun


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
    """The reviewer's feedback; ``tests``: the test command's run on the change, if it ran
    (the quality gate and the recovery ladder's failure history both read it)."""

    text: str
    tests: TestRun | None = None


@dataclass(frozen=True)
class JudgeDone:
    """The judge's final text; None when the call gave no text at all (no signal)."""

    text: str | None


@dataclass(frozen=True)
class SubtaskResult:
    """One subtask of a wave: its worker's report, or ``error`` when it could not be run."""

    id: str
    text: str = ""
    error: str = ""
    started_at: datetime | None = None
    finished_at: datetime | None = None


@dataclass(frozen=True)
class WaveJoined:
    """Every subtask of wave ``wave`` (attempt ``attempt``) has ended and their changes were
    joined on ``start_commit``: into ``commit`` (empty when nothing changed), or not at all
    when they overlap (``conflict`` says where)."""

    wave: int
    attempt: int
    results: tuple[SubtaskResult, ...]
    start_commit: str = ""
    commit: str = ""
    conflict: str = ""


@dataclass(frozen=True)
class AgentFailed:
    """An agent could not be run at all (LLM errors after the adapter's retries).

    ``infrastructure``: the model's service failed (overloaded, 5xx, unreachable), not the
    request; the recovery ladder asks the doctor at once.
    """

    role: Role
    error: str
    infrastructure: bool = False


@dataclass(frozen=True)
class EffectsFailed:
    """The engine could not perform the last effects: ``what`` is ``push`` (git refused or
    could not reach the remote) or ``github`` (the API failing after the client's retries).

    Infrastructure, not the agents' work: the effects not yet done wait with the task and
    are performed before its next agent call; the recovery ladder asks the doctor at once.
    """

    what: str
    error: str


@dataclass(frozen=True)
class DoctorDone:
    """The doctor's answer (an ``AGENTIUM_DOCTOR:`` line); None when it gave no text."""

    text: str | None


@dataclass(frozen=True)
class ReplanDone:
    """The replanner's revised approach for the current phase; None when it gave none."""

    text: str | None


@dataclass(frozen=True)
class HumanAnswer:
    """A comment on the issue by a permitted person while the task waits for an answer."""

    text: str
    user: str = ""


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
    | BaselineTaken
    | WorkerDone
    | WaveJoined
    | AssessorDone
    | ReviewerDone
    | JudgeDone
    | AgentFailed
    | EffectsFailed
    | HumanCommand
    | BudgetExceeded
    | HumanReview
    | DoctorDone
    | ReplanDone
    | HumanAnswer
)
