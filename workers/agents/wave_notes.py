"""What the reviewer and the judge are told about the plan's waves and its check
(docs/design.md §8): the wave under review, the walk behind the whole change, TDD findings."""

from __future__ import annotations

from pathlib import Path

from workers.agents import wavefiles
from workers.controller.effects import RunAgent
from workers.controller.phases import Phase
from workers.controller.wavestate import RunStatus, WaveWalk

REVIEW_RULES = (
    "Judge `test` subtasks on the quality of their tests (they are meant to fail until their "
    "implementation runs in a later wave), `impl` subtasks on the tests of the earlier waves "
    "now passing (see the test command's result), `refactor` subtasks on behaviour kept."
)


def _subtasks(walk: WaveWalk, number: int) -> str:
    wave = walk.waves[number - 1]
    return "\n".join(f"- {s.label()}" for s in wave.subtasks)


def review_note(effect: RunAgent, walk: WaveWalk) -> str:
    """For the reviewer of one wave: what the diff is and how to judge its subtasks."""
    wave = effect.wave
    if wave is None or not walk.waves:
        return ""
    return (
        f"This review is of {wave.describe()} only, not the whole change: the diff is this "
        f"wave's, against its starting commit {wave.start_commit[:12]}. Its subtasks ran at "
        f"the same time:\n\n{_subtasks(walk, wave.number)}\n\n{REVIEW_RULES}"
    )


def judge_note(effect: RunAgent, walk: WaveWalk) -> str:
    """For the judge of one wave: what each verdict does."""
    wave = effect.wave
    if wave is None or not walk.waves:
        return ""
    left = wave.max_attempts - wave.attempt
    retry = (
        f"the wave is run again from its starting commit by fresh workers, with the review "
        f"and your summary as their feedback ({left} more attempt(s) allowed)"
        if left
        else "this was the wave's last attempt: the remaining waves are not run"
    )
    return (
        f"You decide on {wave.describe()}, not on the whole change. Its subtasks:\n\n"
        f"{_subtasks(walk, wave.number)}\n\nADVANCE: the next wave runs (or, after the last, "
        f"the whole change is reviewed). ITERATE: {retry}. BLOCKED: the remaining waves are "
        "not run; the whole change is then reviewed and judged as one. Test subtasks are "
        "expected to leave failing tests behind; that alone is no reason to ITERATE."
    )


def walk_note(effect: RunAgent, walk: WaveWalk, state_dir: Path) -> str:
    """For the reviewer and judge of the whole change after a walk: how it went."""
    first = effect.phase is Phase.IMPLEMENT and effect.iteration == 1 and effect.wave is None
    if not first or not walk.waves:
        return ""
    lines = []
    for wave in walk.waves:
        state = {RunStatus.COMPLETED: "done", RunStatus.FAILED: "failed"}.get(wave.status)
        tries = f", {wave.attempt} attempts" if wave.attempt > 1 else ""
        lines.append(f"- wave {wave.number}: {state or 'not run'}{tries}: " + ", ".join(wave.ids))
    stopped = f"\n\nThe walk stopped early: {walk.stopped}" if walk.stopped else ""
    summaries = wavefiles.summaries(state_dir, before=len(walk.waves) + 1)
    shown = "\n\n".join(summaries)
    return (
        f"This iteration ran the plan in {len(walk.waves)} waves, each reviewed and judged:"
        f"\n\n" + "\n".join(lines) + stopped + (f"\n\n{shown}" if shown else "")
    )


def findings_note(effect: RunAgent, findings: tuple[str, ...]) -> str:
    """For the plan reviewer and judge: what the controller's plan check found."""
    if effect.phase is not Phase.PLAN or not findings:
        return ""
    items = "\n".join(f"- {item}" for item in findings)
    return (
        f"The controller's plan check found (the repository's `tdd` rule is advisory):\n\n{items}"
    )
