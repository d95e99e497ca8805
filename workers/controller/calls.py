"""The agent calls a task waits for, rebuilt from the state alone (after a crash too)."""

from __future__ import annotations

from workers.controller.core import Context, Transition
from workers.controller.effects import (
    Effect,
    OpenOrUpdatePR,
    RunAgent,
    RunWave,
    Session,
    WavePointer,
)
from workers.controller.guidance import guidance_for
from workers.controller.limits import Limits
from workers.controller.phases import Path, Phase, Role
from workers.controller.routing import routing_key
from workers.controller.state import Awaiting, Feedback, WorkflowState

Call = RunAgent | RunWave


def _session(state: WorkflowState, awaiting: Awaiting) -> Session:
    if awaiting.role is Role.JUDGE and awaiting.reask:
        return Session.CONTINUE
    later_simple = state.path is Path.SIMPLE and (state.phase, state.iteration) not in (
        (Phase.PLAN, 1),
        (Phase.IMPLEMENT, 1),
    )
    if awaiting.role is Role.WORKER and later_simple:
        return Session.CONTINUE
    return Session.NEW


def walks_waves(state: WorkflowState) -> bool:
    """The first COMPLEX IMPLEMENT iteration runs a plan of two or more tasks in waves.

    Not in a review round: there the review is the work, in one worker.
    """
    first = state.phase is Phase.IMPLEMENT and state.iteration == 1 and state.round == 0
    return first and state.path is Path.COMPLEX and state.total_tasks > 1


def wave_pointer(state: WorkflowState, number: int) -> WavePointer:
    walk = state.walk
    wave = walk.waves[number - 1]
    return WavePointer(
        number=number,
        of=len(walk.waves),
        attempt=max(1, wave.attempt),
        max_attempts=wave.max_attempts,
        subtasks=wave.ids,
        start_commit=wave.start_commit,
    )


def _wave_calls(state: WorkflowState, limits: Limits, awaiting: Awaiting) -> RunWave:
    pointer = wave_pointer(state, awaiting.wave)
    given = state.walk.waves[awaiting.wave - 1].feedback
    guidance = guidance_for(state, awaiting, limits)  # a fallback route, if any
    feedback = Feedback(review=given.review, judge=given.judge) if given else None
    calls = tuple(
        RunAgent(
            role=Role.WORKER,
            phase=state.phase,
            iteration=state.iteration,
            max_iterations=limits.max_iterations(state.path, state.phase),
            routing_key=routing_key(Role.WORKER, state.phase),
            feedback=feedback,
            wave=pointer,
            subtask=subtask,
            guidance=guidance,
        )
        for subtask in pointer.subtasks
    )
    return RunWave(wave=pointer, calls=calls)


def request(state: WorkflowState, limits: Limits) -> Call:
    """The call the task is waiting for: one agent, or a wave's subtasks."""
    awaiting = state.awaiting
    if awaiting is None:
        raise ValueError(f"the task waits for no agent (phase {state.phase})")
    if awaiting.wave and awaiting.role is Role.WORKER:
        return _wave_calls(state, limits, awaiting)
    is_worker = awaiting.role is Role.WORKER
    return RunAgent(
        role=awaiting.role,
        phase=state.phase,
        iteration=state.iteration,
        max_iterations=limits.max_iterations(state.path, state.phase),
        routing_key=routing_key(awaiting.role, state.phase, strong=awaiting.reask),
        session=_session(state, awaiting),
        feedback=state.feedback if is_worker else None,
        wave=wave_pointer(state, awaiting.wave) if awaiting.wave else None,
        reask=awaiting.reask,
        guidance=guidance_for(state, awaiting, limits),
    )


def wait_for(
    state: WorkflowState, ctx: Context, role: Role, *, reask: bool = False, wave: int = 0
) -> Transition:
    waiting = state.model_copy(update={"awaiting": Awaiting(role=role, reask=reask, wave=wave)})
    return Transition(waiting, (request(waiting, ctx.limits),))


def after_work(state: WorkflowState, ctx: Context) -> Transition:
    """After the iteration's work: push commits, then the assessor (while no path is set
    in PLAN) or the reviewer of the whole change."""
    effects: tuple[Effect, ...] = ()
    if state.iteration_commits:
        effects = (OpenOrUpdatePR(create=not state.pr_open),)
        state = state.model_copy(update={"pr_open": True})
    assess = state.phase is Phase.PLAN and state.path is None
    following = wait_for(state, ctx, Role.ASSESSOR if assess else Role.REVIEWER)
    return Transition(following.state, effects + following.effects)
