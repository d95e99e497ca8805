"""One subtask of a wave: what a ``run_subtask`` job does under the subtask's lease.

Any worker runs it: a fresh agent session in a checkout of its own (one directory per
position in the wave, so the subtasks of a wave can run at once on one machine) at the
wave's starting commit, with a private copy of the task's state directory (read from Redis,
never saved back). The agent changes files and does not commit; the job keeps its report,
its patch against the starting commit and its spend on the wave's board in Redis. The job
that ends the wave's last subtask asks for the join.

The lease is the task lease's kind (``workers.tasks.lease``, docs/design.md §7) on the key
``keys.subtask_lease``: renewed by a thread while the job lives, lapsing within its TTL once
the worker dies, and a fence: the job's writes on the board compare its token, and its agent
run stops at its next model call once the lease is known lost. A worker killed mid-subtask
loses that agent call only: its lease lapses and the next launch (RQ's retry of the job,
the sweep's step, or a command's) runs the subtask again.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from config import keys
from workers.agents.budget import load_ledger
from workers.agents.runner import AgentRunner
from workers.agents.task import TaskContext
from workers.agents.taskfiles import TaskFiles
from workers.controller.effects import RunAgent, RunWave
from workers.controller.outcomes import AgentFailed, BudgetExceeded, Outcome, WorkerDone
from workers.controller.spend import Spend
from workers.controller.transitions import pending_agent
from workers.engine.board import ENDED, SubtaskRecord, SubtaskStatus, WaveBoard
from workers.engine.leftovers import claim
from workers.engine.repo_settings import effective_config
from workers.engine.session import state_dir, task_workspace
from workers.engine.statesync import StateSync
from workers.engine.wavespend import difference
from workers.gitops.checkout import LocalGit
from workers.gitops.runner import GitError
from workers.gitops.wavegit import PatchTooLarge, subtask_patch
from workers.gitops.workspace import workspace_path
from workers.repoconfig import EffectiveConfig
from workers.runtime import Runtime
from workers.tasks import lease
from workers.tasks.lease import Fenced, Lease, TaskBusy
from workers.tasks.record import TaskRecord, TaskStatus

log = logging.getLogger("agentium.subtasks")

AskJoin = Callable[[str, int, int, int], object]  # task key, wave, attempt, launches


@dataclass(frozen=True)
class Where:
    key: str
    wave: int
    attempt: int
    subtask: str

    @property
    def lease_name(self) -> str:
        return keys.subtask_lease(self.key, self.wave, self.attempt, self.subtask)


def run_subtask(rt: Runtime, where: Where, ask_join: AskJoin) -> str:
    """Run the subtask unless another job holds it, it ended, or the task moved on."""
    try:
        with lease.hold(rt.redis, where.key, name=where.lease_name, wait_s=0) as held:
            return _run(rt, where, held, ask_join)
    except TaskBusy:
        return "busy"
    except Fenced:
        extra = {"task": where.key, "subtask": where.subtask}
        log.warning("subtask ended: its lease was lost, its run is not kept", extra=extra)
        return "lease_lost"


def is_leased(rt: Runtime, where: Where) -> bool:
    """Somebody runs the subtask (its lease lives)."""
    return lease.is_held(rt.redis, where.key, name=where.lease_name)


def _run(rt: Runtime, where: Where, held: Lease, ask_join: AskJoin) -> str:
    record = rt.store.get(where.key)
    if record is None:
        return "no_task"
    config = effective_config(rt.config_defaults, record.repo_config)
    wave = _wave_of(record, config, where)
    if wave is None:
        return "stale"
    board = WaveBoard(rt.redis, where.key, where.wave, where.attempt)
    start = board.start()
    if board.statuses([where.subtask])[where.subtask] in ENDED or not start:
        _maybe_join(board, wave, record, ask_join)
        return "ended" if start else "no_start"
    (call,) = [c for c in wave.calls if c.subtask == where.subtask]
    board.mark_running(where.subtask, held)
    started = rt.now()
    status, result, patch = _work(rt, record, config, call, wave, start, held)
    run = board.launches(where.subtask)
    done = result.model_copy(update={"started_at": started, "finished_at": rt.now(), "run": run})
    board.finish(where.subtask, status, done, patch, lease=held)
    extra = {"task": where.key, "subtask": where.subtask, "status": status.value}
    log.info("subtask ended", extra=extra)
    _maybe_join(board, wave, record, ask_join)
    return f"subtask_{status.value}"


def _wave_of(record: TaskRecord, config: EffectiveConfig, where: Where) -> RunWave | None:
    state = record.workflow
    waiting = state.awaiting
    if record.status is not TaskStatus.ACTIVE or state.paused is not None or waiting is None:
        return None
    if waiting.wave != where.wave or state.walk.waves[where.wave - 1].attempt != where.attempt:
        return None
    call = pending_agent(state, config.limits)
    if not isinstance(call, RunWave) or where.subtask not in call.wave.subtasks:
        return None
    return call


def _maybe_join(board: WaveBoard, wave: RunWave, record: TaskRecord, ask_join: AskJoin) -> None:
    ids = wave.wave.subtasks
    if board.all_ended(ids):
        launches = sum(board.launches(s) for s in ids)
        ask_join(record.key, wave.wave.number, wave.wave.attempt, launches)


def slot_path(rt: Runtime, record: TaskRecord, slot: int) -> Path:
    """The checkout of the ``slot``-th subtask of a wave (kept for later waves)."""
    main = workspace_path(rt.data_dir, record.repo, record.issue)
    return main.with_name(f"{main.name}.slot{slot}")


def private_state(rt: Runtime, record: TaskRecord, slot: int) -> Path:
    main = state_dir(rt.data_dir, record)
    return main.with_name(f"{main.name}.slot{slot}")


Ended = tuple[SubtaskStatus, SubtaskRecord, str]


def _work(
    rt: Runtime,
    record: TaskRecord,
    config: EffectiveConfig,
    call: RunAgent,
    wave: RunWave,
    start: str,
    held: Lease,
) -> Ended:
    slot = wave.wave.subtasks.index(call.subtask or "")
    try:
        workspace = task_workspace(rt, record, slot_path(rt, record, slot))
        private = private_state(rt, record, slot)
        for path in (workspace.path, private):  # the machine's sweep keeps them while in use
            claim(path, record.key)
        workspace.prepare()
        workspace.detach_at(start)
        shutil.rmtree(private, ignore_errors=True)
        StateSync(rt.redis, record.key, private, lease=None).restore()  # read, never saved
        before = load_ledger(TaskFiles(private).spend_path) or Spend()
        deps = replace(
            rt.runner.deps,
            routing=config.routing,
            settings=config.agents,
            interrupt=held.raise_if_lost,
        )
        runner = AgentRunner(deps)
        assert record.base_sha is not None
        context = TaskContext.from_state(
            record.workflow, config.workflow, issue_number=record.issue,
            issue_title=record.issue_title, issue_body=record.issue_body,
            checkout=workspace.path, state_dir=private, base_sha=record.base_sha,
            test_command=config.test_command,
        )  # fmt: skip
        outcome = runner.run(call, context, workspace.checkout())
        spent = difference(load_ledger(TaskFiles(private).spend_path) or Spend(), before)
        return _ended(outcome, workspace.checkout(), start, spent)
    except (GitError, OSError) as error:
        failed = SubtaskRecord(error=f"the subtask could not be set up: {error}")
        return SubtaskStatus.FAILED, failed, ""
    finally:  # the private copy served this run only
        shutil.rmtree(private_state(rt, record, slot), ignore_errors=True)


def _ended(outcome: Outcome, repo: LocalGit, start: str, spent: Spend) -> Ended:
    if isinstance(outcome, BudgetExceeded):
        return SubtaskStatus.BUDGET, SubtaskRecord(error=outcome.detail, spend=spent), ""
    if isinstance(outcome, AgentFailed):
        return SubtaskStatus.FAILED, SubtaskRecord(error=outcome.error, spend=spent), ""
    text = outcome.text if isinstance(outcome, WorkerDone) else ""
    try:
        patch = subtask_patch(repo, start)
    except PatchTooLarge as error:
        too_much = SubtaskRecord(text=text, problem=str(error), spend=spent)
        return SubtaskStatus.COMPLETED, too_much, ""
    return SubtaskStatus.COMPLETED, SubtaskRecord(text=text, spend=spent), patch
