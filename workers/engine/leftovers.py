"""What a machine keeps of tasks it no longer works on: checkouts and state copies.

A step leaves the task's checkout (``DATA_DIR/workspaces/...``) and its copy of the
task's state directory (``DATA_DIR/tasks/...``) on the machine that ran it, so the next
step there starts at once. The machine that finishes a task removes its own; the others
would keep theirs forever. Every worker process therefore sweeps its machine's data
directory now and then (``LeftoverSweep``, from the worker's maintenance loop):

- each directory has a sibling marker ``<name>.task`` naming its task, written by every
  step that uses it (``claim``), so its modification time is the directory's last use;
- a directory whose task is still active is kept, however old (its next step needs it);
- one of an ended task (finished, cancelled, or gone from Redis), or one without a
  marker, is removed once unused for ``ttl_s``, while holding the task's lease so no step
  of a reopened task can be working in it meanwhile (a busy task is left for next time).

A removed checkout costs a reopened task one clone; nothing else is lost: the task's
state lives in Redis (docs/design.md §7).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from workers.gitops.ready import remove_checkout
from workers.periodic import Periodic
from workers.tasks.lease import TaskBusy
from workers.tasks.record import TaskStatus
from workers.tasks.store import TaskStore

log = logging.getLogger("agentium.leftovers")

MARKER = ".task"


def marker_of(path: Path) -> Path:
    return path.with_name(path.name + MARKER)


def claim(path: Path, task_key: str) -> None:
    """Note that ``path`` belongs to ``task_key`` and was used now."""
    path.parent.mkdir(parents=True, exist_ok=True)
    marker_of(path).write_text(task_key, encoding="utf-8")


def _last_use(path: Path) -> float:
    marker = marker_of(path)
    return (marker if marker.exists() else path).stat().st_mtime


def _owner(path: Path) -> str | None:
    try:
        return marker_of(path).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def _remove(path: Path) -> None:
    remove_checkout(path)  # a state copy has no ready file: a plain removal
    marker_of(path).unlink(missing_ok=True)


@dataclass
class LeftoverSweep(Periodic[Path]):
    """Removes the directories of ended tasks unused for ``ttl_s`` under ``roots``, at
    most once every ``every_s`` (``maybe_run``)."""

    failure = "sweeping old checkouts failed"
    logger = log

    store: TaskStore
    roots: tuple[Path, ...]
    ttl_s: float
    every_s: float
    clock: Callable[[], float] = time.time
    _last_run: float | None = field(default=None, init=False)

    def run(self) -> list[Path]:
        removed = [path for path in self._candidates() if self._sweep(path)]
        if removed:
            log.info("removed old checkouts", extra={"count": len(removed)})
        self._forget_markers()
        return removed

    def _forget_markers(self) -> None:
        """Markers whose directory the task's own clean-up removed, once unused as long."""
        cutoff = self.clock() - self.ttl_s
        for root in self.roots:
            for marker in root.glob(f"*{MARKER}") if root.is_dir() else ():
                owned = marker.with_name(marker.name.removesuffix(MARKER))
                if not owned.exists() and marker.stat().st_mtime < cutoff:
                    marker.unlink(missing_ok=True)

    def _candidates(self) -> Iterator[Path]:
        cutoff = self.clock() - self.ttl_s
        for root in self.roots:
            if not root.is_dir():
                continue
            for path in sorted(root.iterdir()):
                if path.is_dir() and not path.is_symlink() and _last_use(path) < cutoff:
                    yield path

    def _sweep(self, path: Path) -> bool:
        key = _owner(path)
        if key is None:
            _remove(path)
            return True
        record = self.store.get(key)
        if record is not None and record.status is TaskStatus.ACTIVE:
            return False
        try:
            with self.store.leased(key, wait_s=0, renew=False):
                _remove(path)
        except TaskBusy:
            return False
        return True
