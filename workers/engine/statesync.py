"""A task's state directory, kept in Redis so any worker can run any step.

The agents keep files in the task's state directory (plan, feedback, conversations to
continue, phase summaries, the spend ledger). After every step the directory (but for the
agents' scratch directory, which may hold anything and is not meant to last) is packed
into Redis with the step number; a worker that finds its own copy missing or older
unpacks it first. Code lives in git, state in Redis: nothing on one worker's disk is
needed by another. A save under a lease is fenced like the record (docs/design.md §7).
"""

from __future__ import annotations

import io
import os
import shutil
import tarfile
from pathlib import Path

from redis import Redis

from config import keys
from workers.agents.taskfiles import SCRATCH
from workers.tasks.lease import Lease, LeaseLost

MAX_BYTES = 32 * 1024 * 1024  # packed; a state directory is text, far below this
VERSION_FILE = ".agentium-step"
# KEYS: the files hash, the lease. ARGV: token ("" = unfenced), step, tar.
_SAVE = """
if ARGV[1] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'step', ARGV[2], 'tar', ARGV[3])
return 1
"""


class StateTooLarge(RuntimeError):
    """The packed state directory exceeds MAX_BYTES."""


def local_version(root: Path) -> int | None:
    try:
        return int((root / VERSION_FILE).read_text())
    except (OSError, ValueError):
        return None


def _packable(path: Path) -> bool:
    """Regular files only: no links (the agents' tools write files, never links)."""
    if path.is_symlink() or not path.is_file():
        return False
    return not path.name.endswith(".tmp") and path.name != VERSION_FILE


def _files(root: Path) -> list[Path]:
    """Every file under ``root`` but the agents' scratch directory (never packed)."""
    found = []
    for folder, dirs, files in os.walk(root):
        if Path(folder) == root:
            dirs[:] = [d for d in dirs if d != SCRATCH]
        found += [Path(folder) / name for name in files]
    return sorted(found)


def pack(root: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in _files(root):
            if _packable(path):
                archive.add(path, arcname=str(path.relative_to(root)), recursive=False)
    data = buffer.getvalue()
    if len(data) > MAX_BYTES:
        raise StateTooLarge(f"the task's state is {len(data):,} bytes packed")
    return data


def unpack(data: bytes, root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        extract_safely(archive, root)


def extract_safely(archive: tarfile.TarFile, root: Path) -> None:
    """Regular files and directories only, each inside ``root``, owned by whoever extracts
    them: no absolute paths, no ``..``, no links or devices, no owner taken from the archive
    (Python's "data" filter where it has one; 3.11 before 3.11.4, as Debian 12 ships it,
    does not)."""
    if hasattr(tarfile, "data_filter"):
        archive.extractall(root, filter="data")
        return
    top = root.resolve()
    for member in archive.getmembers():
        target = (top / member.name).resolve()
        if not (member.isfile() or member.isdir()) or not target.is_relative_to(top):
            raise tarfile.TarError(f"refused archive member {member.name!r}")
        member.uid, member.gid, member.uname, member.gname = os.getuid(), os.getgid(), "", ""
    archive.extractall(root)  # noqa: S202 (every member checked above)


class StateSync:
    def __init__(self, redis: Redis, task_key: str, root: Path, *, lease: Lease | None) -> None:
        self._redis, self._key, self.root = redis, keys.task_files(task_key), root
        self._task, self._lease = task_key, lease

    def save(self, step: int) -> None:
        """Pack the directory into Redis; LeaseLost (nothing written) once the lease is gone."""
        if not self.root.is_dir():
            return
        lease = self._lease
        token = lease.token if lease is not None else ""
        fence = keys.task_lease(self._task)
        if not self._redis.eval(_SAVE, 2, self._key, fence, token, step, pack(self.root)):
            raise LeaseLost(self._task)
        (self.root / VERSION_FILE).write_text(str(step))

    def restore(self) -> bool:
        """Bring the local directory up to the stored step; True when it was unpacked."""
        stored = self._redis.hmget(self._key, ["step", "tar"])
        step, data = stored[0], stored[1]
        if not isinstance(data, bytes) or step is None or local_version(self.root) == int(step):
            return False
        unpack(data, self.root)
        (self.root / VERSION_FILE).write_text(str(int(step)))
        return True

    def forget(self) -> None:
        self._redis.delete(self._key)
