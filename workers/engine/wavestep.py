"""A step of a task that waits for a wave (docs/design.md §8), under the task's lease.

While some of the wave's subtasks have not ended, the step launches those that need it: the
ones never launched (or whose failure was reported and a retry resumed), and the ones whose
worker died (no lease, no live job). It then ends without scheduling a next step: the
subtask that ends last asks for the join. Once every subtask has ended, the step joins:
the subtasks' spend into the task's ledger (once), their patches into one commit on the
wave's starting commit, and the controller's ``WaveJoined`` (or ``BudgetExceeded``) applied
as any outcome, which pushes the commit. The step's writes are fenced by the task's lease
as every step's: the record and state files by their saves, and the lease is checked before
the board is written (launches, a subtask given up, failed ones forgotten).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workers.agents import wavefiles
from workers.agents.taskfiles import TaskFiles
from workers.controller.effects import RunWave
from workers.controller.outcomes import BudgetExceeded
from workers.controller.phases import Role
from workers.controller.state import Feedback
from workers.engine.board import ENDED, SubtaskRecord, SubtaskStatus, WaveBoard
from workers.engine.join import join_wave
from workers.engine.subtasks import Where, is_leased
from workers.engine.wavespend import add_to_ledger

if TYPE_CHECKING:
    from workers.engine.driver import Driver

MAX_LOST = 2  # a subtask whose workers died this often more is given up (reported failed)


@dataclass(frozen=True)
class WaveJobs:
    """Launch one run of a subtask (task key, wave, attempt, subtask, launch number), and
    tell whether that run's job is still queued or running."""

    launch: Callable[[str, int, int, str, int], object]
    alive: Callable[[str, int, int, str, int], bool]


class WaveStep:
    def __init__(self, driver: Driver, jobs: WaveJobs) -> None:
        self.driver = driver
        self.jobs = jobs

    def run(self, effect: RunWave) -> str:
        record = self.driver.record
        wave = effect.wave
        board = WaveBoard(self.driver.rt.redis, record.key, wave.number, wave.attempt)
        current = record.workflow.walk.waves[wave.number - 1]
        start = board.set_start(current.start_commit or record.head_sha or record.base_sha or "")
        if board.all_ended(wave.subtasks):
            return self.join(effect, board, start)
        return self.launch(effect, board)

    def _needs_launch(self, board: WaveBoard, effect: RunWave, subtask: str) -> bool:
        status = board.statuses([subtask])[subtask]
        launches = board.launches(subtask)
        if status in ENDED:
            return False
        if status is None or launches == 0:
            return True
        key, wave = self.driver.record.key, effect.wave
        if is_leased(self.driver.rt, Where(key, wave.number, wave.attempt, subtask)):
            return False
        alive = self.jobs.alive(key, wave.number, wave.attempt, subtask, launches)
        return not (status is SubtaskStatus.PENDING and alive)

    def launch(self, effect: RunWave, board: WaveBoard) -> str:
        wave, key = effect.wave, self.driver.record.key
        needed = [s for s in wave.subtasks if self._needs_launch(board, effect, s)]
        if not needed:
            return "wave_running"
        if wave.attempt > 1 and all(board.launches(s) == 0 for s in wave.subtasks):
            self._keep_feedback(effect)
        self.driver.lease.check()  # a step that lost the task launches nothing
        for subtask in needed:
            if board.statuses([subtask])[subtask] is not None and board.lost(subtask) > MAX_LOST:
                why = f"its workers stopped {MAX_LOST + 1} times before it ended"
                board.finish(subtask, SubtaskStatus.FAILED, SubtaskRecord(error=why))
                continue
            number = board.launch(subtask)
            self.jobs.launch(key, wave.number, wave.attempt, subtask, number)
        if board.all_ended(wave.subtasks):
            return self.join(effect, board, board.start())
        return f"launched_{len(needed)}"

    def _keep_feedback(self, effect: RunWave) -> None:
        """The retry's feedback as a file the subtasks can read (saved as a step)."""
        driver, wave = self.driver, effect.wave
        feedback = effect.calls[0].feedback or Feedback()
        driver.session.files.restore()
        wavefiles.write_feedback(driver.session.state_dir, wave.number, wave.attempt - 1, feedback)
        driver.record.steps += 1
        driver.rt.store.save(driver.record, lease=driver.lease)
        driver.session.files.save(driver.record.steps)

    def join(self, effect: RunWave, board: WaveBoard, start: str) -> str:
        driver, wave = self.driver, effect.wave
        ids = wave.subtasks
        statuses = board.statuses(ids)
        records = {s: board.record(s) for s in ids}
        driver.prepare()
        root = driver.session.state_dir
        folder = wavefiles.attempt_dir(root, wave.number, wave.attempt)
        for subtask, result in records.items():
            marker = folder / f"spent-{subtask}-{result.run}"
            add_to_ledger(TaskFiles(root).spend_path, marker, result.spend)
        ended_badly = [
            s for s in ids if statuses[s] in (SubtaskStatus.FAILED, SubtaskStatus.BUDGET)
        ]
        over = [s for s in ids if statuses[s] is SubtaskStatus.BUDGET]
        self.driver.lease.check()  # a late join forgets nothing
        if over:
            board.forget(ended_badly)
            driver.apply(BudgetExceeded(Role.WORKER, records[over[0]].error))
            return "budget"
        current = driver.record.workflow.walk.waves[wave.number - 1]
        outputs = [board.output(s) for s in ids]
        issue_ref = f"#{driver.record.issue}"
        joined = join_wave(driver.session.checkout(), root, current, start, outputs, issue_ref)
        board.forget(ended_badly)  # reported: a resumed wave runs them again
        driver.apply(joined)
        return "joined" if not ended_badly else "subtask_failed"
