"""Repository copies no task has used for long, removed from the machine.

A machine keeps, per repository, a copy of its default branch (``DATA_DIR/git-cache/
<repo>.git``) and spare checkouts cloned from it (``<repo>.spares``), for the next task
of that repository (``workers.gitops.cache``). A repository the bot no longer works on
would keep them forever, so every worker's maintenance loop removes both once no step
has used them for ``ttl_s`` (``GIT_CACHE_TTL_S``, a week by default).

Every use of a copy, a checkout taken from it or a network clone fed to it, touches
``<repo>.used`` (``touch_used``); its modification time is the copy's last use. A copy
is removed by renaming it aside first (``.removing-<random>``), so a step finds either
the whole copy or none, and two workers sweeping at once cannot both remove it. A step
that uses the copy just as it goes (its clone fails) falls back to the network, as on
any failure of the copy: a removed copy costs the next task of that repository one
network clone, nothing else.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from workers.periodic import Periodic

log = logging.getLogger("agentium.git")

USED = ".used"
PARTS = (".git", ".spares")  # a copy, and its spare checkouts
REMOVING = ".removing-"


def touch_used(copy: Path) -> None:
    """Note that the copy at ``copy`` (``<repo>.git``) was used now (best effort)."""
    try:
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.with_suffix(USED).touch()
    except OSError as error:
        log.warning("could not mark the repository copy as used: %s", error)


@dataclass
class CacheSweep(Periodic[str]):
    """Removes the copies under ``root`` unused for ``ttl_s``, at most once every
    ``every_s`` (``maybe_run``)."""

    failure = "sweeping unused repository copies failed"
    logger = log

    root: Path
    ttl_s: float
    every_s: float
    clock: Callable[[], float] = time.time
    _last_run: float | None = field(default=None, init=False)

    def run(self) -> list[str]:
        """The names (``<repo>``) of the copies removed."""
        if not self.root.is_dir():
            return []
        cutoff = self.clock() - self.ttl_s
        removed = [name for name in self._names() if self._last_use(name) < cutoff]
        for name in removed:
            for suffix in PARTS:
                self._remove(self.root / f"{name}{suffix}")
            (self.root / f"{name}{USED}").unlink(missing_ok=True)
        self._finish_removals()
        if removed:
            log.info("removed unused repository copies", extra={"repos": removed})
        return removed

    def _names(self) -> set[str]:
        return {
            path.name.removesuffix(suffix)
            for suffix in (*PARTS, USED)
            for path in self.root.glob(f"*{suffix}")
            if not path.name.startswith(".") and not path.is_symlink()
        }

    def _last_use(self, name: str) -> float:
        """The marker's time; without one, the newest of the copy's parts."""
        marker = self.root / f"{name}{USED}"
        paths = [marker] if marker.exists() else [self.root / f"{name}{p}" for p in PARTS]
        times = []
        for path in paths:
            with contextlib.suppress(OSError):  # a part not there, or gone meanwhile
                times.append(path.stat().st_mtime)
        return max(times, default=0.0)

    def _remove(self, path: Path) -> None:
        aside = self.root / f"{REMOVING}{uuid.uuid4().hex}"
        try:
            path.rename(aside)
        except OSError:  # not there, or another worker's sweep took it first
            return
        shutil.rmtree(aside, ignore_errors=True)

    def _finish_removals(self) -> None:
        """What a sweep killed mid-removal left aside."""
        for left in self.root.glob(f"{REMOVING}*"):
            shutil.rmtree(left, ignore_errors=True)
