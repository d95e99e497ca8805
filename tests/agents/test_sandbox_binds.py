"""What a command sees: the checkout, the system read-only, the run's own binds, nothing else.

Bind paths are checked (absolute, existing, resolved, not ``/``, not a system directory or
``/tmp``); a bind under ``/tmp`` is seen although the command's ``/tmp`` is private; the
bot's data directory, settings file and key are absent, and masked where they fall inside
something bound.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agents.conftest import make_checkout, needs_bwrap
from workers.agents.sandbox import BindError, Sandbox, core
from workers.agents.sandbox.mounts import resolver_files

pytestmark = needs_bwrap


@pytest.fixture
def under_tmp() -> Iterator[Path]:
    """A directory right under the host's /tmp (pytest's own may be elsewhere)."""
    path = Path(tempfile.mkdtemp(prefix="agentium-binds-", dir="/tmp"))
    yield path
    shutil.rmtree(path)


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("relative/dir", "absolute"),
        ("/no/such/agentium/dir", "does not exist"),
        ("/", "cannot be bound"),
        ("/usr", "system directory"),
        ("/etc", "system directory"),
        ("/tmp", "system directory or /tmp"),
        ("/proc/self", "/proc"),
        ("/dev/shm", "/dev"),
    ],
)
def test_bad_bind_paths_are_refused(sandbox: Sandbox, checkout: Path, path: str, why: str) -> None:
    with pytest.raises(BindError, match=why):
        sandbox.run("true", checkout, readable=[Path(path)])
    with pytest.raises(BindError, match=why):
        sandbox.run("true", checkout, writable=[Path(path)])


def test_a_symlinked_bind_is_bound_at_its_real_place(
    sandbox: Sandbox, checkout: Path, tmp_path: Path
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "f.txt").write_text("through it\n")
    (tmp_path / "link").symlink_to(real)
    result = sandbox.run(f"cat {real}/f.txt; ls {tmp_path}", checkout, readable=[tmp_path / "link"])
    assert "through it" in result.output
    assert "link" not in result.output.split()  # only the resolved path exists inside


def test_a_checkout_under_tmp_is_seen_and_tmp_stays_private(
    sandbox: Sandbox, under_tmp: Path
) -> None:
    checkout = make_checkout(under_tmp)
    (under_tmp / "beside.txt").write_text("host tmp")
    result = sandbox.run("echo made > made.txt; ls /tmp; cat ../beside.txt; pwd", checkout)
    assert (checkout / "made.txt").read_text() == "made\n"
    assert "host tmp" not in result.output
    assert str(checkout) in result.output


def test_readable_and_writable_binds_of_a_run(
    sandbox: Sandbox, checkout: Path, under_tmp: Path
) -> None:
    env, tools = under_tmp / "env", under_tmp / "tools"
    env.mkdir()
    tools.mkdir()
    (tools / "tool.sh").write_text("echo tool ran\n")
    command = f"sh {tools}/tool.sh; echo built > {env}/out; echo no > {tools}/x; echo rc=$?"
    result = sandbox.run(command, checkout, writable=[env], readable=[tools])
    assert "tool ran" in result.output
    assert (env / "out").read_text() == "built\n"
    assert not (tools / "x").exists()
    assert "Read-only file system" in result.output
    later = sandbox.run(f"ls {env} {tools}", checkout)  # binds last only for their run
    assert later.exit_code != 0


def test_data_dir_settings_file_and_key_are_absent(sandbox: Sandbox, tmp_path: Path) -> None:
    data = tmp_path / "data"
    checkout = make_checkout(data / "workspaces")
    other = data / "workspaces" / "other__2"
    other.mkdir()
    (other / "state.json").write_text("other-task-state")
    (data / "dump.rdb").write_text("redis-state")
    key, env = tmp_path / "app.pem", tmp_path / ".env"
    key.write_text("-----BEGIN PRIVATE KEY-----")
    env.write_text("WEBHOOK_SECRET=hook")
    confined = Sandbox(sandbox.settings, sandbox.bwrap, hidden=(data, key, env))
    result = confined.run(
        f"cat {key} {env} {data}/dump.rdb {other}/state.json; ls -a {data}", checkout
    )
    for secret in ("BEGIN", "hook", "redis-state", "other-task-state"):
        assert secret not in result.output
    assert result.output.count("No such file or directory") == 4
    assert result.output.split()[-3:] == [".", "..", "workspaces"]  # the path to the checkout


def test_a_hidden_path_inside_a_bound_tree_is_masked(
    sandbox: Sandbox, checkout: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    (shared / "private").mkdir(parents=True)
    (shared / "private" / "k").write_text("masked-dir-secret")
    (shared / "key.pem").write_text("masked-file-secret")
    (shared / "open.txt").write_text("visible")
    hidden = (shared / "private", shared / "key.pem")
    confined = Sandbox(sandbox.settings, sandbox.bwrap, hidden=hidden, readable=[shared])
    result = confined.run(f"cat {shared}/open.txt {shared}/key.pem {shared}/private/k", checkout)
    assert "visible" in result.output
    assert "masked" not in result.output
    with pytest.raises(BindError, match="hidden"):
        confined.run("true", checkout, readable=[shared / "private"])


def test_a_run_with_the_network_sees_a_resolver_that_lives_under_run(
    sandbox: Sandbox, checkout: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """systemd-resolved's /etc/resolv.conf links to /run/systemd/resolve/..."""
    target = tmp_path / "run" / "stub-resolv.conf"
    target.parent.mkdir()
    target.write_text("nameserver 127.0.0.53\n")
    (tmp_path / "resolv.conf").symlink_to(target)
    system = sandbox.settings.system_paths
    assert resolver_files(system, tmp_path / "resolv.conf") == [target]
    assert resolver_files(system, Path("/etc/hostname")) == []  # inside /etc anyway
    assert resolver_files(("/etc", str(tmp_path)), tmp_path / "resolv.conf") == []
    monkeypatch.setattr(
        core, "resolver_files", lambda s: resolver_files(s, tmp_path / "resolv.conf")
    )
    assert "nameserver" in sandbox.run(f"cat {target}", checkout, network=True).output
    assert "nameserver" not in sandbox.run(f"cat {target}", checkout).output
