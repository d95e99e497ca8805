"""The README's phase diagram has exactly the phase transitions the controller can make.

The controller is explored breadth-first over every kind of outcome (worker results with
and without commits, NOTHING_TO_DO, both assessor answers, each verdict, no signal, agent
failures, budgets exceeded, the recovery ladder's doctor answers, stop and retry, and a
human review: one review round, offered in
every state, applied only where the controller accepts it); every phase change and every
same-phase iteration it makes must be an edge of the README's `stateDiagram-v2`, and every
edge there must be reachable.
"""

from __future__ import annotations

import re
from collections import deque
from pathlib import Path

from tests.controller.controller_support import NOW
from workers.controller.errors import OutcomeMismatch
from workers.controller.limits import Limits
from workers.controller.outcomes import (
    AgentFailed,
    AssessorDone,
    BudgetExceeded,
    Command,
    DoctorDone,
    HumanCommand,
    HumanReview,
    JudgeDone,
    Outcome,
    ReplanDone,
    ReviewerDone,
    Start,
    WorkerDone,
)
from workers.controller.phases import Role
from workers.controller.review import accepts_review
from workers.controller.state import WorkflowState
from workers.controller.transitions import step

README = Path(__file__).parent.parent / "README.md"
MAX_STATES = 40_000  # about 30,000 with budgets, the doctor and one review round per ending

OUTCOMES: dict[Role, list[Outcome]] = {
    Role.WORKER: [
        WorkerDone("### Task 1: change it", made_commits=True),
        WorkerDone("looked around", made_commits=False),
        WorkerDone("AGENTIUM_STATUS: NOTHING_TO_DO already fixed"),
        AgentFailed(Role.WORKER, "HTTP 529"),
    ],
    Role.ASSESSOR: [AssessorDone("AGENTIUM_EVAL: SIMPLE"), AssessorDone("AGENTIUM_EVAL: COMPLEX")],
    Role.REVIEWER: [ReviewerDone("looks fine"), AgentFailed(Role.REVIEWER, "HTTP 529")],
    Role.JUDGE: [
        JudgeDone("AGENTIUM_EVAL: ADVANCE"),
        JudgeDone("AGENTIUM_EVAL: ITERATE more tests"),
        JudgeDone("AGENTIUM_EVAL: BLOCKED no access"),
        JudgeDone(None),
    ],
    Role.DOCTOR: [
        DoctorDone("AGENTIUM_DOCTOR: retry_with_fix add the test"),
        DoctorDone("AGENTIUM_DOCTOR: fatal the API is gone"),
    ],
    Role.REPLANNER: [ReplanDone("another approach")],
}
for _role, _outcomes in OUTCOMES.items():
    _outcomes.append(BudgetExceeded(_role, "dollars $5.01 of $5.00"))
HUMAN = [HumanCommand(Command.STOP), HumanCommand(Command.RETRY)]
REVIEW = HumanReview("rename the flag", "alice", ("r-1",))


def human(state: WorkflowState, reviewed: set[tuple[str, str]]) -> list[Outcome]:
    """Commands always; a review on the first COMPLETE task of each path and ending (ready or
    NOMERGE), never twice: one round from each is enough to see every edge, and keeps the
    exploration small."""
    if state.round or not accepts_review(state):
        return list(HUMAN)
    kind = (str(state.path), state.pr_result)
    if kind in reviewed:
        return list(HUMAN)
    reviewed.add(kind)
    return [*HUMAN, REVIEW]


def controller_edges() -> set[tuple[str, str]]:
    limits = Limits()
    start = step(WorkflowState(), Start(), limits, now=NOW).state
    edges: set[tuple[str, str]] = set()
    seen: set[str] = set()
    reviewed: set[tuple[str, str]] = set()
    todo = deque([start])
    while todo and len(seen) < MAX_STATES:
        state = todo.popleft()
        role = state.awaiting.role if state.awaiting else None
        for outcome in [*OUTCOMES.get(role, []), *human(state, reviewed)]:
            try:
                after = step(state, outcome, limits, now=NOW).state
            except OutcomeMismatch:
                continue
            if after.phase != state.phase or after.iteration > state.iteration:
                edges.add((state.phase.value, after.phase.value))
            # The ladder's history (failures, steps) makes every path its own state; the
            # budgets it has used (doctor calls, replans, ...) stay in the key.
            ladder = {"failures", "steps", "tests", "hint", "intent"}
            key = after.model_dump_json(exclude={"history": True, "memory": True,
                                                 "recovery": ladder})  # fmt: skip
            if key not in seen:
                seen.add(key)
                todo.append(after)
    assert len(seen) < MAX_STATES, "state space larger than expected"
    return edges


def readme_edges() -> set[tuple[str, str]]:
    block = re.search(r"```mermaid\nstateDiagram-v2\n(.*?)```", README.read_text(), re.S)
    assert block, "README has no stateDiagram-v2"
    pairs = re.findall(r"^\s*(\w+) --> (\w+)", block.group(1), re.M)
    return {(a, b) for a, b in pairs}


def test_readme_diagram_matches_the_controller() -> None:
    assert readme_edges() == controller_edges()
