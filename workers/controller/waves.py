"""The wave walk of a COMPLEX plan's first IMPLEMENT iteration (docs/design.md §8).

| waiting for         | outcome                  | rule                                          |
|---------------------|--------------------------|-----------------------------------------------|
| the wave's subtasks | WaveJoined, a subtask    | pause BLOCKED (``/agentium retry`` re-runs    |
|                     | could not be run         | only the subtasks that did not finish)        |
|                     | WaveJoined, conflict     | the attempt failed (the conflict is feedback) |
|                     | WaveJoined               | push the wave's commit; the wave reviewer     |
| the wave reviewer   | ReviewerDone             | the wave judge                                |
| the wave judge      | no verdict               | re-ask once; then ITERATE (strict: BLOCKED)   |
|                     | ADVANCE                  | the next wave; after the last, the review of  |
|                     |                          | the whole change                              |
|                     | ITERATE                  | the attempt failed                            |
|                     | BLOCKED                  | stop the walk                                 |
| a failed attempt    |                          | attempts left: retry the wave from its        |
|                     |                          | starting commit with fresh sessions and the   |
|                     |                          | review as feedback; else stop the walk        |

A stopped walk leaves the later waves unrun (remembered as STEP_PENDING); the iteration
then goes on as any other: its reviewer and judge on the whole change, the usual rules.
"""

from __future__ import annotations

from collections.abc import Callable

from workers.controller import memory, signals
from workers.controller.calls import wait_for
from workers.controller.core import Context, Transition, first_line, record, remember, status
from workers.controller.effects import Effect, OpenOrUpdatePR
from workers.controller.errors import OutcomeMismatch
from workers.controller.memory import MemoryEntry, MemoryType
from workers.controller.outcomes import JudgeDone, ReviewerDone, WaveJoined
from workers.controller.phases import JUDGE_VERDICTS, Role, Verdict
from workers.controller.plan_check import check_plan, wave_layout
from workers.controller.state import WorkflowState
from workers.controller.wavestate import (
    RunStatus,
    SubtaskState,
    WaveEvent,
    WaveFeedback,
    WaveState,
    new_walk,
)

Pause = Callable[[WorkflowState, Context, str], Transition]
CONFLICT_DIRECTIVE = "the subtasks' changes overlapped: keep each subtask to its own files"


def _update(state: WorkflowState, wave: WaveState) -> WorkflowState:
    return state.model_copy(update={"walk": state.walk.with_wave(wave)})


def _names(wave: WaveState) -> str:
    return ", ".join(s.label() for s in wave.subtasks)


def start_walk(state: WorkflowState, ctx: Context) -> Transition:
    """Lay the plan out in waves and start the first (the plan is checked as at PLAN's end:
    one still invalid runs its tasks one by one in plan order)."""
    check = check_plan(state.plan or "", ctx.rules.tdd)
    walk = new_walk(wave_layout(check), ctx.rules.wave_attempts)
    laid = state.model_copy(update={"walk": walk})
    shape = "; ".join(f"{w.number}: {', '.join(w.ids)}" for w in walk.waves)
    how = "" if check.valid else " (the plan is invalid: one task at a time, in plan order)"
    noted = record(laid, ctx, Role.CONTROLLER, f"Plan in {len(walk.waves)} waves{how}: {shape}")
    return _start_wave(noted, ctx, 0, 1, None)


def _start_wave(
    state: WorkflowState, ctx: Context, index: int, attempt: int, feedback: WaveFeedback | None
) -> Transition:
    wave = state.walk.waves[index]
    subtasks = tuple(
        s.model_copy(
            update={
                "status": RunStatus.RUNNING,
                "attempt": attempt,
                "started_at": ctx.now,
                "completed_at": None,
                "error": "",
            }
        )
        for s in wave.subtasks
    )
    running = wave.model_copy(
        update={
            "subtasks": subtasks,
            "status": RunStatus.RUNNING if attempt == 1 else RunStatus.RETRYING,
            "attempt": attempt,
            "started_at": ctx.now,
            "completed_at": None,
            "commit": "",
            "error": "",
            "review": "",
            "verdict": None,
            "feedback": feedback,
        }
    )
    moved = _update(state, running).model_copy(
        update={"walk": state.walk.with_wave(running).model_copy(update={"current": index})}
    )
    of = len(state.walk.waves)
    retry = f", attempt {attempt} of {wave.max_attempts}" if attempt > 1 else ""
    event = WaveEvent.WAVE_STARTED if attempt == 1 else WaveEvent.WAVE_RETRY
    said = f"Wave {wave.number}/{of} started{retry}: {_names(wave)}"
    moved = record(moved, ctx, Role.CONTROLLER, said, event=event, wave=wave.number)
    for item in subtasks:
        moved = record(
            moved,
            ctx,
            Role.WORKER,
            f"Subtask {item.label()} started",
            event=WaveEvent.SUBTASK_STARTED,
            wave=wave.number,
            subtask=item.id,
        )
    started = wait_for(moved, ctx, Role.WORKER, wave=wave.number)
    return Transition(started.state, (status(started.state), *started.effects))


def _check_joined(wave: WaveState, joined: WaveJoined) -> None:
    if (joined.wave, joined.attempt) != (wave.number, wave.attempt):
        raise OutcomeMismatch(
            f"wave {joined.wave} attempt {joined.attempt} joined while waiting for "
            f"wave {wave.number} attempt {wave.attempt}"
        )
    if sorted(r.id for r in joined.results) != sorted(wave.ids):
        raise OutcomeMismatch(f"wave {wave.number} has subtasks {', '.join(wave.ids)}")


def _subtask_done(item: SubtaskState, ctx: Context, joined: WaveJoined) -> SubtaskState:
    result = next(r for r in joined.results if r.id == item.id)
    return item.model_copy(
        update={
            "status": RunStatus.FAILED if result.error else RunStatus.COMPLETED,
            "started_at": result.started_at or item.started_at,
            "completed_at": result.finished_at or ctx.now,
            "error": result.error,
            "summary": first_line(result.text),
        }
    )


def on_joined(state: WorkflowState, ctx: Context, joined: WaveJoined, pause: Pause) -> Transition:
    """The wave's subtasks ended and their changes were joined (or not)."""
    wave = state.walk.wave
    _check_joined(wave, joined)
    subtasks = tuple(_subtask_done(item, ctx, joined) for item in wave.subtasks)
    wave = wave.model_copy(update={"subtasks": subtasks, "start_commit": joined.start_commit})
    noted = _update(state, wave)
    texts = {r.id: r.text for r in joined.results}
    for result in joined.results:  # the subtasks' memory lines, as any worker's
        noted = remember(noted, result.text)
    for item in subtasks:
        failed = item.status is RunStatus.FAILED
        noted = record(
            noted,
            ctx,
            Role.WORKER,
            f"Subtask {item.label()}: " + (f"failed: {item.error}" if failed else item.summary),
            detail=item.error if failed else texts[item.id],
            event=WaveEvent.SUBTASK_FAILED if failed else WaveEvent.SUBTASK_COMPLETED,
            wave=wave.number,
            subtask=item.id,
        )
    errors = [f"subtask {s.id}: {s.error}" for s in subtasks if s.status is RunStatus.FAILED]
    if errors:
        return pause(noted, ctx, "a subtask could not be run: " + "; ".join(errors))
    if joined.conflict:
        said = f"Join of wave {wave.number}: the changes overlap: {first_line(joined.conflict)}"
        noted = record(noted, ctx, Role.CONTROLLER, said, detail=joined.conflict,
                       event=WaveEvent.JOINED, wave=wave.number)  # fmt: skip
        noted = _update(noted, wave.model_copy(update={"error": joined.conflict}))
        feedback = WaveFeedback(review=joined.conflict, judge=CONFLICT_DIRECTIVE)
        return _attempt_failed(noted, ctx, feedback, f"conflict at the join: {joined.conflict}")
    return _joined(noted, ctx, wave.model_copy(update={"commit": joined.commit}))


def _joined(state: WorkflowState, ctx: Context, wave: WaveState) -> Transition:
    done = f"commit {wave.commit[:12]}" if wave.commit else "no changes"
    said = f"Join of wave {wave.number}: {done} ({wave.commit_title()})"
    noted = record(_update(state, wave), ctx, Role.CONTROLLER, said,
                   event=WaveEvent.JOINED, wave=wave.number)  # fmt: skip
    effects: tuple[Effect, ...] = ()
    if wave.commit:
        effects = (OpenOrUpdatePR(create=not noted.pr_open),)
        noted = noted.model_copy(
            update={"pr_open": True, "has_commits": True, "iteration_commits": True}
        )
    reviewing = wait_for(noted, ctx, Role.REVIEWER, wave=wave.number)
    return Transition(reviewing.state, effects + reviewing.effects)


def on_review(state: WorkflowState, ctx: Context, done: ReviewerDone) -> Transition:
    wave = state.walk.wave.model_copy(update={"review": done.text})
    reviewed = remember(_update(state, wave).model_copy(update={"review": done.text}), done.text)
    said = f"Wave {wave.number} reviewer: {first_line(done.text)}"
    noted = record(reviewed, ctx, Role.REVIEWER, said, detail=done.text, wave=wave.number)
    return wait_for(noted, ctx, Role.JUDGE, wave=wave.number)


def on_judge(state: WorkflowState, ctx: Context, done: JudgeDone) -> Transition:
    """The wave judge: ADVANCE, ITERATE (a failed attempt) or BLOCKED (stop the walk)."""
    wave = state.walk.wave
    judgment = signals.parse_verdict(done.text, JUDGE_VERDICTS)
    reasked = state.awaiting is not None and state.awaiting.reask
    if judgment is None and not reasked:
        said = f"Wave {wave.number} judge gave no verdict: re-asking once"
        noted = record(state, ctx, Role.JUDGE, said, detail=done.text or "", wave=wave.number)
        return wait_for(noted, ctx, Role.JUDGE, reask=True, wave=wave.number)
    strict = ctx.limits.eval_no_signal_limit == 0
    verdict = judgment.verdict if judgment else (Verdict.BLOCKED if strict else Verdict.ITERATE)
    feedback = judgment.feedback if judgment else ""
    said = f"Wave {wave.number} judge verdict: {verdict}"
    said += f" ({first_line(feedback)})" if feedback else ("" if judgment else " (no verdict)")
    wave = wave.model_copy(update={"verdict": verdict})
    noted = record(remember(_update(state, wave), done.text or ""), ctx, Role.JUDGE, said,
                   verdict=verdict, detail=feedback, wave=wave.number)  # fmt: skip
    if verdict is Verdict.ADVANCE:
        return _completed(noted, ctx, wave)
    if verdict is Verdict.ITERATE:
        given = WaveFeedback(review=wave.review, judge=feedback)
        return _attempt_failed(noted, ctx, given, f"the wave judge said ITERATE: {feedback}")
    failed = wave.model_copy(update={"status": RunStatus.FAILED, "completed_at": ctx.now})
    why = f"the wave judge said BLOCKED: {feedback}".rstrip(": ")
    noted = _update(noted, failed.model_copy(update={"error": why}))
    noted = record(noted, ctx, Role.CONTROLLER, f"Wave {wave.number} failed: {why}",
                   event=WaveEvent.WAVE_FAILED, wave=wave.number)  # fmt: skip
    return _stop(noted, ctx, f"wave {wave.number}: {why}")


def _completed(state: WorkflowState, ctx: Context, wave: WaveState) -> Transition:
    done = wave.model_copy(update={"status": RunStatus.COMPLETED, "completed_at": ctx.now})
    noted = record(_update(state, done), ctx, Role.CONTROLLER,
                   f"Wave {wave.number} completed", event=WaveEvent.WAVE_COMPLETED,
                   wave=wave.number)  # fmt: skip
    following = state.walk.current + 1
    if following < len(state.walk.waves):
        return _start_wave(noted, ctx, following, 1, None)
    finished = noted.walk.model_copy(update={"finished": True})
    said = f"All {len(state.walk.waves)} waves completed: the review of the whole change"
    noted = record(noted.model_copy(update={"walk": finished}), ctx, Role.CONTROLLER, said)
    reviewing = wait_for(noted, ctx, Role.REVIEWER)
    return Transition(reviewing.state, (status(reviewing.state), *reviewing.effects))


def _attempt_failed(
    state: WorkflowState, ctx: Context, feedback: WaveFeedback, reason: str
) -> Transition:
    wave = state.walk.wave
    if wave.attempt < wave.max_attempts:
        said = (
            f"Wave {wave.number} attempt {wave.attempt} of {wave.max_attempts} failed: "
            f"retrying from {wave.start_commit[:12] or 'its starting commit'} with fresh sessions"
        )
        noted = record(state, ctx, Role.CONTROLLER, said, detail=reason,
                       event=WaveEvent.WAVE_RETRY, wave=wave.number)  # fmt: skip
        return _start_wave(noted, ctx, state.walk.current, wave.attempt + 1, feedback)
    failed = wave.model_copy(
        update={"status": RunStatus.FAILED, "completed_at": ctx.now, "error": reason}
    )
    said = f"Wave {wave.number} failed {wave.attempt} attempt(s): {first_line(reason)}"
    noted = record(_update(state, failed), ctx, Role.CONTROLLER, said, detail=reason,
                   event=WaveEvent.WAVE_FAILED, wave=wave.number)  # fmt: skip
    return _stop(noted, ctx, f"wave {wave.number} failed {wave.attempt} attempt(s): {reason}")


def _stop(state: WorkflowState, ctx: Context, reason: str) -> Transition:
    """End the walk early: the later waves are not run; the whole change is reviewed."""
    walk = state.walk
    later = [s for w in walk.waves[walk.current + 1 :] for s in w.subtasks]
    left = [s.label() for s in later]
    stopped = walk.model_copy(update={"stopped": reason, "finished": True})
    said = f"Wave walk stopped: {first_line(reason)}"
    if later:
        said += f"; not run: {', '.join(s.id for s in later)}"
    noted = record(state.model_copy(update={"walk": stopped}), ctx, Role.CONTROLLER, said,
                   detail=reason, event=WaveEvent.WALK_STOPPED)  # fmt: skip
    if left:
        entry = MemoryEntry(
            type=MemoryType.STEP_PENDING,
            text=f"plan tasks not run ({reason}): {'; '.join(left)}",
            phase=state.phase,
            iteration=state.iteration,
        )
        noted = noted.model_copy(update={"memory": memory.add(noted.memory, [entry])})
    reviewing = wait_for(noted, ctx, Role.REVIEWER)
    return Transition(reviewing.state, (status(reviewing.state), *reviewing.effects))
