"""Where environments live on a worker's disk, and who may build one.

    DATA_DIR/envs/<owner>__<repo>/<key[:24]>/        the environment (see outcome.Environment)
    DATA_DIR/envs/<owner>__<repo>/<key[:24]>.lock    held while it is built or removed
    DATA_DIR/envs/<owner>__<repo>/<key[:24]>/outcome.json   written last: it is complete

Worker processes of one machine share DATA_DIR: the lock (``flock``, released by the
kernel when its holder dies) lets one of them build while the others wait and then use it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from workers.agents.environment.outcome import EnvironmentOutcome

OUTCOME = "outcome.json"
LOG = "setup.log"
_POLL_SECONDS = 0.5


class EnvironmentBusy(TimeoutError):
    """Another process held the environment's lock for longer than the wait allows."""


def repo_folder(root: Path, repo: str) -> Path:
    return root / re.sub(r"[^A-Za-z0-9._-]", "_", repo.lower().replace("/", "__"))


class Place:
    """One environment's directory, its lock and its stored outcome."""

    def __init__(self, root: Path, repo: str, key: str) -> None:
        folder = repo_folder(root, repo)
        self.dir = folder / key[:24]
        self.lock_path = folder / f"{key[:24]}.lock"

    @contextlib.contextmanager
    def locked(self, wait: float, clock: Callable[[], float] = time.monotonic) -> Iterator[None]:
        self.lock_path.parent.mkdir(parents=True, exist_ok=True)
        with _flock(self.lock_path, wait, clock):
            yield

    def outcome(self) -> EnvironmentOutcome | None:
        try:
            return EnvironmentOutcome.model_validate_json((self.dir / OUTCOME).read_bytes())
        except (OSError, ValueError):
            return None

    def save(self, outcome: EnvironmentOutcome) -> None:
        temporary = self.dir / f"{OUTCOME}.tmp"
        temporary.write_text(outcome.model_dump_json(), encoding="utf-8")
        temporary.replace(self.dir / OUTCOME)

    def fresh(self) -> None:
        """An empty directory for a new build (a half-made or failed one is removed)."""
        shutil.rmtree(self.dir, ignore_errors=True)
        for name in ("home", "tmp"):
            (self.dir / name).mkdir(parents=True)


@contextlib.contextmanager
def _flock(path: Path, wait: float | None, clock: Callable[[], float]) -> Iterator[None]:
    """An exclusive lock on ``path``; ``wait`` None tries once (EnvironmentBusy if held)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = clock() + (wait or 0.0)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if wait is None or clock() >= deadline:
                    raise EnvironmentBusy(f"{path} is held by another process") from None
                time.sleep(_POLL_SECONDS)
        yield
    finally:
        os.close(fd)  # releases the lock


def prune(folder: Path, keep: int, current: Path) -> list[Path]:
    """Remove all but the ``keep`` newest environments of one repository (never
    ``current``, never one whose lock another process holds); returns what was removed."""
    used: list[tuple[float, Path]] = []
    for folder_entry in folder.iterdir():
        with contextlib.suppress(OSError):  # one removed meanwhile by another process
            used.append(((folder_entry / OUTCOME).stat().st_mtime, folder_entry))
    used.sort(reverse=True)
    removed = []
    for _, old in used[keep:]:
        if old == current:
            continue
        try:
            with _flock(folder / f"{old.name}.lock", None, time.monotonic):
                shutil.rmtree(old, ignore_errors=True)
            removed.append(old)
        except EnvironmentBusy:
            continue
    return removed
