"""The nine agents: which prompts, tools and limits each RunAgent effect gets.

| effect                      | agent         | system prompt        | tools      |
|-----------------------------|---------------|----------------------|------------|
| WORKER, PLAN                | plan worker   | worker.system        | read-only  |
| WORKER, IMPLEMENT           | implementer   | worker.system        | read+write |
| WORKER, DOCS                | docs worker   | worker.system        | read+write |
| REVIEWER, PLAN              | plan reviewer | plan_reviewer.system | read-only  |
| REVIEWER, IMPLEMENT or DOCS | code reviewer | code_reviewer.system | read-only  |
| JUDGE, any phase            | judge         | judge.system         | none       |
| ASSESSOR, PLAN              | assessor      | assessor.system      | none       |
| DOCTOR, any phase           | doctor        | doctor.system        | none       |
| REPLANNER, any phase        | replanner     | replanner.system     | read-only  |

The doctor and the replanner are the recovery ladder's calls (docs/design.md §9).

All workers share one system prompt, so a SIMPLE worker conversation can go on from
IMPLEMENT into DOCS; the phase's instructions travel in the briefing.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from workers.agents.tools import ToolAccess
from workers.controller.effects import RunAgent
from workers.controller.phases import Phase, Role


class AgentKind(StrEnum):
    PLAN_WORKER = "plan_worker"
    IMPLEMENT_WORKER = "implement_worker"
    DOCS_WORKER = "docs_worker"
    PLAN_REVIEWER = "plan_reviewer"
    CODE_REVIEWER = "code_reviewer"
    JUDGE = "judge"
    ASSESSOR = "assessor"
    DOCTOR = "doctor"
    REPLANNER = "replanner"


@dataclass(frozen=True)
class RoleSpec:
    kind: AgentKind
    role: Role
    system: str  # template name
    access: ToolAccess
    session: str  # name of the saved conversation


_WORKERS = {
    Phase.PLAN: (AgentKind.PLAN_WORKER, ToolAccess.READ),
    Phase.IMPLEMENT: (AgentKind.IMPLEMENT_WORKER, ToolAccess.WRITE),
    Phase.DOCS: (AgentKind.DOCS_WORKER, ToolAccess.WRITE),
}

PHASE_GOALS = {
    Phase.PLAN: (
        "A plan that solves the issue completely and only the issue, grounded in the real "
        "code, with `### Task N:` sections naming the files to touch and the tests to add."
    ),
    Phase.IMPLEMENT: (
        "The change the plan describes, correct and tested, with the repository's tests "
        "passing, and nothing the issue did not ask for."
    ),
    Phase.DOCS: (
        "Documentation (README, docs, docstrings, changelog) that describes the implemented "
        "change accurately. This phase does not block the task."
    ),
}


class UnknownAgent(ValueError):
    """A RunAgent effect that names no agent (a controller bug)."""


def spec_for(effect: RunAgent) -> RoleSpec:
    if effect.role is Role.WORKER and effect.phase in _WORKERS:
        kind, access = _WORKERS[effect.phase]
        return RoleSpec(kind, Role.WORKER, "worker.system", access, "worker")
    if effect.role is Role.REVIEWER and effect.phase is Phase.PLAN:
        kind = AgentKind.PLAN_REVIEWER
        return RoleSpec(kind, Role.REVIEWER, "plan_reviewer.system", ToolAccess.READ, "reviewer")
    if effect.role is Role.REVIEWER and effect.phase in (Phase.IMPLEMENT, Phase.DOCS):
        kind = AgentKind.CODE_REVIEWER
        return RoleSpec(kind, Role.REVIEWER, "code_reviewer.system", ToolAccess.READ, "reviewer")
    if effect.role is Role.JUDGE and effect.phase in _WORKERS:
        return RoleSpec(AgentKind.JUDGE, Role.JUDGE, "judge.system", ToolAccess.NONE, "judge")
    if effect.role is Role.ASSESSOR:
        kind = AgentKind.ASSESSOR
        return RoleSpec(kind, Role.ASSESSOR, "assessor.system", ToolAccess.NONE, "assessor")
    if effect.role is Role.DOCTOR:
        return RoleSpec(AgentKind.DOCTOR, Role.DOCTOR, "doctor.system", ToolAccess.NONE, "doctor")
    if effect.role is Role.REPLANNER:
        kind = AgentKind.REPLANNER
        return RoleSpec(kind, Role.REPLANNER, "replanner.system", ToolAccess.READ, "replanner")
    raise UnknownAgent(f"no agent for {effect.role} in {effect.phase}")
