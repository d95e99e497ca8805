"""Drive a scenario through the controller while performing its GitHub effects for real.

Each scripted worker that makes commits writes a file in the real git workspace and commits
it as the bot before its outcome reaches ``step``, as a real worker agent would. Used by the
effects tests and by ``bench/github_requests.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from workers.controller.effects import Effect
from workers.controller.outcomes import (
    Start,
    WorkerDone,
)
from workers.controller.state import WorkflowState
from workers.controller.transitions import step
from workers.github.effects import GitHubEffects
from workers.gitops.workspace import GitWorkspace
from workers.offline.scenario import load_scenario
from workers.offline.scripted import scripted_outcome

SCENARIOS = Path(__file__).parent.parent / "scenarios"


@dataclass
class Run:
    state: WorkflowState
    effects: list[Effect] = field(default_factory=list)


def drive(
    scenario: str | Path,
    github: GitHubEffects,
    workspace: GitWorkspace,
    *,
    repeat: int = 1,
    between: Callable[[WorkflowState], None] | None = None,
) -> Run:
    """Run the scenario; every transition's effects are performed ``repeat`` times."""
    script = load_scenario(SCENARIOS / scenario if isinstance(scenario, str) else scenario)
    limits = script.settings.limits
    clock = (datetime(2025, 1, 1, tzinfo=UTC) + timedelta(minutes=i) for i in range(10_000))
    workspace.prepare()
    github.start()
    transition = step(WorkflowState(), Start(), limits, now=next(clock))
    run = Run(transition.state)
    for _ in range(repeat):
        github.perform(transition.effects, transition.state)
    run.effects += transition.effects
    for item in script.steps:
        state = transition.state
        outcome = scripted_outcome(item, state.phase)
        if isinstance(outcome, WorkerDone) and outcome.made_commits:
            _work(workspace, state)
        transition = step(state, outcome, limits, now=next(clock))
        for _ in range(repeat):
            github.perform(transition.effects, transition.state)
        run.effects += transition.effects
        run.state = transition.state
        if between is not None:
            between(run.state)
    return run


def _work(workspace: GitWorkspace, state: WorkflowState) -> None:
    notes = workspace.path / "NOTES.md"
    with notes.open("a") as file:
        file.write(f"- {state.phase} iteration {state.iteration}\n")
    workspace.commit(state.phase.value, state.iteration, "scripted change")
