"""``agentium simulate SCENARIO.yml``: run the phase controller on scripted agent outputs.

No LLM and no GitHub: each agent call the controller asks for is answered by the next step
of the scenario (format: the README). Prints the trace, one line per step, then a
JSON summary line. Exit status: 0 ok, 1 the scenario's ``expect`` does not hold, 2 the
scenario is malformed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import count
from pathlib import Path
from typing import Any

from workers.controller import gate
from workers.controller.effects import (
    CommentKind,
    Effect,
    Finish,
    MarkReady,
    OpenOrUpdatePR,
    PostComment,
    PostNomerge,
    RunAgent,
    RunWave,
)
from workers.controller.errors import OutcomeMismatch
from workers.controller.ladder import waiting_for_answer
from workers.controller.limits import Limits
from workers.controller.outcomes import HumanReview, Outcome, Start
from workers.controller.phases import WORK_PHASES, Phase, Role
from workers.controller.review import accepts_review, batch_reviews, mention
from workers.controller.spend import Usage, with_usage
from workers.controller.state import HistoryEntry, WorkflowState
from workers.controller.transitions import Transition, step
from workers.controller.wavestate import WaveEvent
from workers.offline.scenario import Scenario, ScenarioError, ScriptStep, load_scenario
from workers.offline.scripted import scripted_outcome
from workers.offline.wave_answers import WaveAnswers

CLOCK_START = datetime(2025, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class SimulationResult:
    trace: tuple[str, ...]
    summary: dict[str, Any]
    state: WorkflowState


@dataclass
class _Trace:
    """Renders history entries and effects as the seed's example workflows do."""

    pr_number: int
    lines: list[str] = field(default_factory=list)
    where: tuple[Phase, int] | None = None

    def show(self, before: WorkflowState, transition: Transition) -> None:
        for entry in transition.state.entries_since(before):
            self._entry(entry)
        for effect in transition.effects:
            self._effect(effect, transition.state)

    def _entry(self, entry: HistoryEntry) -> None:
        if entry.event is WaveEvent.SUBTASK_STARTED:
            return  # the wave's start names its subtasks
        if entry.phase is Phase.COMPLETE and entry.role is Role.HUMAN:  # a review round
            self.lines += ["", "=== Human Review ===", f"  → {entry.summary}"]
            self.where = None
            return
        if entry.phase.is_terminal:
            self._header(entry.phase, entry.iteration)
            if entry.phase is not Phase.COMPLETE:
                self.lines.append(f"  → {entry.summary.removeprefix(f'{entry.phase}: ')}")
            return
        self._header(entry.phase, entry.iteration, entry.of)
        inside = entry.wave and entry.event is not WaveEvent.WAVE_STARTED
        self.lines.append(f"{'    ' if inside else '  '}→ {entry.summary}")

    def _header(self, phase: Phase, iteration: int, of: int = 0) -> None:
        if self.where is not None and self.where[0] is phase and self.where[1] == iteration:
            return
        if self.where is None or self.where[0] is not phase:
            name = "PhaseComplete" if phase is Phase.COMPLETE else phase.value
            suffix = "" if phase.is_terminal else " Phase"
            self.lines += ["", f"=== {name}{suffix} ==="]
        elif not phase.is_terminal:
            self.lines.append("")
        if not phase.is_terminal:
            self.lines.append(f"Iteration {iteration}/{of}:")
        self.where = (phase, iteration)

    def _effect(self, effect: Effect, state: WorkflowState) -> None:
        pr = f"PR #{self.pr_number}"
        if isinstance(effect, OpenOrUpdatePR):
            indent = "    " if state.awaiting is not None and state.awaiting.wave else "  "
            said = (
                f"Controller creates draft {pr}"
                if effect.create
                else f"Controller pushes to existing branch ({pr} auto-updates)"
            )
            self.lines.append(f"{indent}→ {said}")
        elif isinstance(effect, MarkReady):
            self.lines.append(f"  → Controller finalizes draft {pr} (marks as ready for review)")
        elif isinstance(effect, PostNomerge):
            reason = effect.reason.replace("\n", "; ")
            self.lines.append(f"  → Controller comments NOMERGE on draft {pr}: {reason}")
        elif isinstance(effect, PostComment) and effect.kind is CommentKind.QUESTION:
            self.lines.append(f"  → Controller asks on the issue: {effect.data['question']}")
        elif isinstance(effect, PostComment) and effect.kind is CommentKind.REVIEW_REPLY:
            ids = effect.data["reviews"].replace(",", ", ") or "the review"
            done = effect.data["summary"].splitlines()[-1].removeprefix("- ")
            self.lines.append(f"  → Controller replies on {pr} to {ids}: {done}")
        elif isinstance(effect, Finish):
            self.where = None
            if waiting_for_answer(state):
                self.lines += [
                    "",
                    "Paused (BLOCKED): a reply on the issue or /agentium retry resumes",
                ]
            elif state.paused is not None:
                self.lines += ["", "Paused (BLOCKED): /agentium retry resumes"]
            else:
                self.lines += ["", f"Final Phase: {effect.final_phase}"]

    def queued(self, review: HumanReview) -> None:
        ids = f" ({', '.join(review.reviews)})" if review.reviews else ""
        self.lines.append(f"  → Review by {mention(review.user)}{ids} queued until COMPLETE")


def _pending(transition: Transition) -> RunAgent | RunWave | None:
    return next((e for e in transition.effects if isinstance(e, RunAgent | RunWave)), None)


def _waiting_for(pending: RunAgent | RunWave) -> str:
    if isinstance(pending, RunWave):
        return f"subtasks {', '.join(pending.wave.subtasks)} of wave {pending.wave.number}"
    return f"{pending.role.lower()} ({pending.phase} iteration {pending.iteration})"


def _check_order(scenario: Scenario, item: ScriptStep, pending: RunAgent | RunWave | None) -> None:
    where = f"{scenario.source}:{item.line}"
    if item.command is not None or item.kind in ("review", "spend", "answer"):
        return
    if pending is None:
        raise ScenarioError(f"{where}: the task has already ended; this step is never used")
    wave = isinstance(pending, RunWave)
    if wave != (item.kind == "subtask") and item.kind != "budget":
        raise ScenarioError(
            f"{where}: the controller asks for the {_waiting_for(pending)}, not a {item.kind}"
        )
    if isinstance(pending, RunWave):
        return
    if item.role is not pending.role and not (
        item.kind == "budget" and item.role is Role.CONTROLLER
    ):
        asked = f"{pending.role.lower()} ({pending.phase} iteration {pending.iteration})"
        raise ScenarioError(f"{where}: the controller asks for the {asked}, not a {item.kind}")


def _run(scenario: Scenario, trace: _Trace) -> WorkflowState:
    """Answer the controller from the steps; as the real caller does, a review that comes
    while the task is not COMPLETE is queued and applied (batched) once it is."""
    limits: Limits = scenario.settings.limits
    rules = scenario.settings.plan_rules
    clock: Iterator[datetime] = (CLOCK_START + timedelta(minutes=i) for i in count())
    state = WorkflowState()
    transition = step(
        state, Start(baseline=scenario.baseline), limits, now=next(clock), rules=rules
    )
    trace.show(state, transition)
    queued: list[HumanReview] = []
    answers = WaveAnswers(scenario.source)
    for item in scenario.steps:
        pending = _pending(transition)
        _check_order(scenario, item, pending)
        state = transition.state
        if item.kind == "spend":
            usage, seconds = Usage.model_validate(item.usage), item.usage.get("seconds", 0.0)
            spent = with_usage(state, usage, model=item.model, seconds=seconds)
            transition = Transition(spent, transition.effects)
            continue
        if item.kind == "subtask":
            assert isinstance(pending, RunWave)
            joined = answers.add(item, pending)
            if joined is None:
                continue
            outcome: Outcome = joined
        else:
            outcome = scripted_outcome(item, state.phase)
        if isinstance(outcome, HumanReview) and not accepts_review(state):
            queued.append(outcome)
            trace.queued(outcome)
            continue
        try:
            transition = step(state, outcome, limits, now=next(clock), rules=rules)
        except OutcomeMismatch as error:
            raise ScenarioError(f"{scenario.source}:{item.line}: {error}") from None
        trace.show(state, transition)
        if queued and accepts_review(transition.state):
            state = transition.state
            transition = step(state, batch_reviews(queued), limits, now=next(clock), rules=rules)
            queued.clear()
            trace.show(state, transition)
    pending = _pending(transition)
    if pending is not None:
        raise ScenarioError(
            f"{scenario.source}: the scenario ends while the controller waits for the "
            f"{_waiting_for(pending)}"
        )
    return transition.state


def summarize(state: WorkflowState) -> dict[str, Any]:
    return {
        "final_phase": state.phase.value,
        "path": state.path.value if state.path else None,
        "controller_overrode": state.controller_overrode,
        "pr": state.pr_result,
        "iterations": {phase.value: state.iterations.get(phase, 0) for phase in WORK_PHASES},
        "review_rounds": state.round,
        "spend": {"tokens": state.spend.total_tokens, "usd": round(state.spend.cost_usd, 4)},
        "recovery": [step.action.value for step in state.recovery.steps],
    }


def simulate(scenario: Scenario) -> SimulationResult:
    lines = [f"Task: {scenario.task}", "Initial Phase: PLAN"]
    if scenario.baseline is not None:
        lines.insert(1, f"Quality gate: {gate.status_line(scenario.baseline)}")
    trace = _Trace(pr_number=scenario.pr_number, lines=lines)
    state = _run(scenario, trace)
    return SimulationResult(tuple(trace.lines), summarize(state), state)


def run_scenario(path: str | Path) -> SimulationResult:
    """Load and run a scenario file; raises ScenarioError naming the line when malformed."""
    return simulate(load_scenario(path))


def mismatches(scenario: Scenario, result: SimulationResult) -> list[str]:
    """How the result differs from the scenario's ``expect`` section (empty when it holds)."""
    problems: list[str] = []
    for key, wanted in scenario.expect.items():
        if key == "trace":
            got = "\n".join(result.trace).strip()
            if str(wanted).strip() != got:
                problems.append(f"trace differs; got:\n{got}")
        elif result.summary.get(key) != wanted:
            problems.append(f"{key}: expected {wanted!r}, got {result.summary.get(key)!r}")
    return problems


def main(argv: Sequence[str]) -> int:
    if len(argv) != 1:
        print("usage: agentium simulate SCENARIO.yml", file=sys.stderr)
        return 2
    try:
        scenario = load_scenario(argv[0])
        result = simulate(scenario)
    except ScenarioError as error:
        print(f"agentium simulate: {error}", file=sys.stderr)
        return 2
    for line in result.trace:
        print(line)
    print(json.dumps(result.summary))
    problems = mismatches(scenario, result)
    for problem in problems:
        print(f"agentium simulate: expectation failed: {problem}", file=sys.stderr)
    return 1 if problems else 0
