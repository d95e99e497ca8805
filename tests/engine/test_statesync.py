import io
import os
import tarfile
from pathlib import Path

import pytest
import redis

from workers.engine.statesync import StateSync, extract_safely, pack, unpack


def test_state_moves_between_workers(redis_client: redis.Redis, tmp_path: Path) -> None:
    here, there = tmp_path / "a" / "state", tmp_path / "b" / "state"
    (here / "phases" / "PLAN").mkdir(parents=True)
    (here / "plan.md").write_text("### Task 1: x\n")
    (here / "phases" / "PLAN" / "feedback-1.md").write_text("more tests")
    StateSync(redis_client, "o/r#1", here, lease=None).save(step=3)
    other = StateSync(redis_client, "o/r#1", there, lease=None)
    assert other.restore() is True
    assert (there / "plan.md").read_text() == "### Task 1: x\n"
    assert (there / "phases" / "PLAN" / "feedback-1.md").read_text() == "more tests"
    assert other.restore() is False  # already at step 3
    (there / "plan.md").write_text("stale edit")
    StateSync(redis_client, "o/r#1", here, lease=None).save(step=4)
    assert other.restore() is True
    assert (there / "plan.md").read_text() == "### Task 1: x\n"


def test_nothing_stored_leaves_the_directory(redis_client: redis.Redis, tmp_path: Path) -> None:
    assert StateSync(redis_client, "o/r#2", tmp_path / "s", lease=None).restore() is False


def test_links_out_of_the_directory_are_not_packed_as_links(tmp_path: Path) -> None:
    root = tmp_path / "state"
    root.mkdir()
    (root / "escape").symlink_to("/etc/passwd")
    (root / "ok.md").write_text("fine")
    import io
    import tarfile

    with tarfile.open(fileobj=io.BytesIO(pack(root)), mode="r:gz") as archive:
        assert archive.getnames() == ["ok.md"]


def test_unpacking_refuses_paths_out_of_the_directory(
    redis_client: redis.Redis, tmp_path: Path
) -> None:
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("../outside.txt")
        info.size = 2
        archive.addfile(info, io.BytesIO(b"hi"))
    redis_client.hset("agentium:task:o/r#3:files", mapping={"step": 1, "tar": buffer.getvalue()})
    with pytest.raises(tarfile.TarError):  # OutsideDestinationError where the filter exists
        StateSync(redis_client, "o/r#3", tmp_path / "state", lease=None).restore()
    assert not (tmp_path / "outside.txt").exists()


def test_an_archive_with_a_way_out_is_refused(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("../outside.txt")
        info.size = 1
        archive.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(tarfile.TarError):
        unpack(buffer.getvalue(), tmp_path / "state")
    assert not (tmp_path / "outside.txt").exists()


def test_unpacked_files_belong_to_the_worker_not_to_the_archive(tmp_path: Path) -> None:
    """As root, Python before 3.11.4 would give them the archive's owner (git then refuses
    a checkout whose files another user owns)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("repo/file.txt")
        info.size, info.uid, info.gid, info.uname = 2, 4242, 4242, "someone"
        archive.addfile(info, io.BytesIO(b"hi"))
    buffer.seek(0)
    with tarfile.open(fileobj=buffer) as archive:
        extract_safely(archive, tmp_path / "out")
    assert (tmp_path / "out" / "repo" / "file.txt").stat().st_uid == os.getuid()
