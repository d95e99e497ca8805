"""The join of a wave (docs/design.md §8): the subtasks' patches into one commit.

Used by the engine's join step (under the task's lease, when the wave's last subtask has
ended) and by local mode. It applies the patches in subtask order on the wave's starting
commit, commits ``Wave N: <titles>`` as the bot (dated by the attempt's start, so running
it again makes the same commit), keeps each subtask's report and the rule-based wave
summary in the task's state directory, and says what happened as the controller's
``WaveJoined``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from workers.agents import wavefiles
from workers.controller.outcomes import SubtaskResult, WaveJoined
from workers.controller.wavestate import WaveState
from workers.gitops.checkout import LocalGit
from workers.gitops.wavegit import join_patches


@dataclass(frozen=True)
class SubtaskOutput:
    """What one subtask left: its report, its patch, or why it could not be run (``error``)
    or its changes cannot be joined (``problem``: too many of them)."""

    id: str
    text: str = ""
    patch: str = ""
    error: str = ""
    started_at: datetime | None = None
    finished_at: datetime | None = None
    problem: str = ""

    def result(self) -> SubtaskResult:
        return SubtaskResult(self.id, self.text, self.error, self.started_at, self.finished_at)


def commit_message(wave: WaveState, issue_ref: str) -> str:
    """``issue_ref`` names the issue: ``#N`` on GitHub, the issue file in local mode."""
    subtasks = ", ".join(s.id for s in wave.subtasks)
    return (
        f"{wave.commit_title()}\n\nMade by agentium's worker agents for {issue_ref} "
        f"(subtasks {subtasks}, attempt {max(1, wave.attempt)})."
    )


def join_wave(
    repo: LocalGit,
    state_dir: Path,
    wave: WaveState,
    start: str,
    outputs: Sequence[SubtaskOutput],
    issue_ref: str,
) -> WaveJoined:
    """Join the outputs (any order; joined in the wave's subtask order) on ``start``."""
    by_id = {output.id: output for output in outputs}
    ordered = [by_id[i] for i in wave.ids]
    attempt = max(1, wave.attempt)
    results = tuple(output.result() for output in ordered)
    for output in ordered:
        wavefiles.write_report(state_dir, wave.number, attempt, output.id, output.text)
    if any(output.error for output in ordered):
        return WaveJoined(wave.number, attempt, results, start_commit=start)
    problems = [f"Subtask {o.id}: {o.problem}" for o in ordered if o.problem]
    if problems:
        return WaveJoined(wave.number, attempt, results, start, conflict="\n".join(problems))
    when = (wave.started_at or datetime(2000, 1, 1)).isoformat()
    scratch = state_dir.parent / f"{state_dir.name}.join"
    patches = [(output.id, output.patch) for output in ordered]
    joined = join_patches(repo, start, patches, commit_message(wave, issue_ref), when, scratch)
    if not joined.conflict:
        summary = wavefiles.render_summary(wave, joined.files, start, joined.commit)
        wavefiles.write_summary(state_dir, wave.number, summary)
    return WaveJoined(
        wave.number,
        attempt,
        results,
        start_commit=start,
        commit=joined.commit,
        conflict=joined.conflict,
    )
