"""Local mode's waves (docs/design.md §8): a wave's subtasks one after another, each in a
worktree of its own at the wave's starting commit, then the join on the task's branch.

On GitHub the subtasks of a wave run at once on any workers; on one laptop with one API key
they run in turn, which changes the time, not the result: each still starts from the same
commit in a fresh session and leaves its changes uncommitted for the join.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from workers.agents.runner import AgentRunner
from workers.agents.task import TaskContext
from workers.controller.effects import RunAgent, RunWave
from workers.controller.outcomes import AgentFailed, BudgetExceeded, Outcome, WorkerDone
from workers.controller.state import WorkflowState
from workers.engine.join import SubtaskOutput, join_wave
from workers.gitops.checkout import LocalGit
from workers.gitops.runner import Git, GitError
from workers.gitops.wavegit import PatchTooLarge, subtask_patch


class WaveTask(Protocol):
    """What local mode's task offers the wave."""

    @property
    def runner(self) -> AgentRunner: ...

    @property
    def state_dir(self) -> Path: ...

    def context(self, state: WorkflowState) -> TaskContext: ...

    def checkout(self) -> LocalGit: ...


def run_subtask(
    task: WaveTask, call: RunAgent, state: WorkflowState, start: str, folder: Path
) -> SubtaskOutput | BudgetExceeded:
    main = task.checkout()
    git: Git = main.git
    shutil.rmtree(folder, ignore_errors=True)
    git.run("worktree", "add", "--quiet", "--detach", str(folder), start, cwd=main.root)
    try:
        repo = LocalGit(folder, git, author="agentium", email="agentium@localhost")
        context = replace(task.context(state), checkout=folder)
        outcome = task.runner.run(call, context, repo)
        if isinstance(outcome, BudgetExceeded):
            return outcome
        if isinstance(outcome, AgentFailed):
            return SubtaskOutput(call.subtask or "", error=outcome.error)
        text = outcome.text if isinstance(outcome, WorkerDone) else ""
        try:
            return SubtaskOutput(call.subtask or "", text, subtask_patch(repo, start))
        except PatchTooLarge as error:
            return SubtaskOutput(call.subtask or "", text, problem=str(error))
        except GitError as error:
            return SubtaskOutput(call.subtask or "", text, error=str(error))
    finally:
        git.run("worktree", "remove", "--force", str(folder), cwd=main.root, check=False)


def wave_start(task: WaveTask, wave: RunWave, state: WorkflowState) -> str:
    """Where every attempt of the wave starts: recorded after its first join, else HEAD."""
    return state.walk.waves[wave.wave.number - 1].start_commit or task.checkout().head()


def subtask_folder(task: WaveTask, call: RunAgent) -> Path:
    return task.state_dir.parent / "subtasks" / f"{call.subtask}"


def join(
    task: WaveTask, wave: RunWave, state: WorkflowState, start: str, outputs: list[SubtaskOutput]
) -> Outcome:
    current = state.walk.waves[wave.wave.number - 1]
    issue_ref = task.context(state).issue_ref
    return join_wave(task.checkout(), task.state_dir, current, start, outputs, issue_ref)


def run_wave(task: WaveTask, wave: RunWave, state: WorkflowState) -> Outcome:
    """Run every subtask of the wave, then join them into the task's branch."""
    start = wave_start(task, wave, state)
    outputs = []
    for call in wave.calls:
        done = run_subtask(task, call, state, start, subtask_folder(task, call))
        if isinstance(done, BudgetExceeded):
            return done
        outputs.append(done)
    return join(task, wave, state, start, outputs)
