"""A scenario step as the controller's outcome (the simulator and the test drivers)."""

from __future__ import annotations

from workers.controller.outcomes import (
    AgentFailed,
    AssessorDone,
    BudgetExceeded,
    DoctorDone,
    HumanAnswer,
    HumanCommand,
    HumanReview,
    JudgeDone,
    Outcome,
    ReplanDone,
    ReviewerDone,
    WorkerDone,
)
from workers.controller.phases import Phase, Role
from workers.offline.scenario import ScriptStep


def scripted_outcome(item: ScriptStep, phase: Phase) -> Outcome:
    """What the step stands for in `phase` (a worker commits by default after PLAN)."""
    if item.command is not None:
        return HumanCommand(item.command, item.user)
    if item.kind == "review":
        return HumanReview(item.text or "", item.user, item.reviews)
    if item.kind == "answer":
        return HumanAnswer(item.text or "", item.user)
    if item.kind == "budget":
        assert item.role is not None
        return BudgetExceeded(item.role, item.error)
    if item.kind == "fail":
        assert item.role is not None
        return AgentFailed(item.role, item.error, infrastructure=item.infrastructure)
    if item.role is Role.WORKER:
        commits = item.commits if item.commits is not None else phase is not Phase.PLAN
        return WorkerDone(item.text or "", made_commits=commits)
    if item.role is Role.ASSESSOR:
        return AssessorDone(item.text)
    if item.role is Role.REVIEWER:
        return ReviewerDone(item.text or "", tests=item.tests)
    if item.role is Role.DOCTOR:
        return DoctorDone(item.text)
    if item.role is Role.REPLANNER:
        return ReplanDone(item.text)
    return JudgeDone(item.text)
