"""Every escape of issue 18, tried from inside the sandbox as root and as an ordinary user.

The probes (``escapes.py``) run through the worker's own sandbox. "root" runs them in this
process (the suite runs as root in CI, as ``make run`` does on a fresh machine);
"unprivileged" runs them in a child process under ``setpriv`` as a uid that owns the whole
world (its secrets included), as a worker run by a dedicated user would. Each test asserts
that the escape fails; ``test_unconfined_the_probes_do_find_the_secrets`` shows that the
same probes do find what they look for when nothing confines them.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.escapes import MARK, SECRET_ENV, SETTINGS, World, make_world, run_probe
from tests.security.listeners import listening
from workers.agents.sandbox import Bubblewrap, CommandResult, Sandbox

ROOT = Path(__file__).parent.parent.parent
USER = 64_123  # an ordinary uid with no name: the unprivileged worker
IS_ROOT = os.geteuid() == 0
pytestmark = pytest.mark.skipif(Bubblewrap.find() is None, reason="bubblewrap is not installed")


def _as_user(*args: str) -> list[str]:
    setpriv = shutil.which("setpriv") or "setpriv"
    return [setpriv, f"--reuid={USER}", f"--regid={USER}", "--clear-groups", "--", *args]


def _user_env(world: World | None = None) -> dict[str, str]:
    site = [p for p in sys.path if p.endswith("site-packages")]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join([str(ROOT), *site])}
    if world is not None:
        env |= {"HOME": f"{world.base}/home", SECRET_ENV: world.env_secret}
    return env


@pytest.fixture(scope="module")
def user_python() -> str:
    """An interpreter the unprivileged user may run that imports the project."""
    if not IS_ROOT or shutil.which("setpriv") is None:
        pytest.skip("running as another user needs root and setpriv")
    for python in (sys.executable, "/usr/bin/python3"):
        probe = _as_user(python, "-c", "import workers.agents.sandbox")
        if subprocess.run(probe, env=_user_env(), capture_output=True, check=False).returncode == 0:
            return python
    pytest.skip(f"no Python that uid {USER} may run imports the project")


@pytest.fixture(params=["root", "unprivileged"])
def identity(request: pytest.FixtureRequest) -> str:
    if request.param == "root" and not IS_ROOT:
        pytest.skip("the suite does not run as root here")
    return str(request.param)


@pytest.fixture
def world(identity: str, tmp_path: Path) -> Iterator[World]:
    if identity == "root":
        base, owner = tmp_path / "host", None
    else:
        base, owner = Path(tempfile.mkdtemp(prefix="agentium-user-", dir="/var/tmp")), (USER, USER)
        base.chmod(0o700)
    with listening(base) as where:
        yield make_world(base, where, owner)
    if owner is not None:
        shutil.rmtree(base)


def probe(identity: str, world: World, name: str, request: pytest.FixtureRequest) -> CommandResult:
    if identity == "root":
        os.environ[SECRET_ENV] = world.env_secret
        try:
            return run_probe(name, world)
        finally:
            del os.environ[SECRET_ENV]
    python = request.getfixturevalue("user_python")
    argv = _as_user(python, "-m", "tests.security.escapes", name, json.dumps(world.__dict__))
    done = subprocess.run(
        argv, cwd=ROOT, env=_user_env(world), capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return CommandResult(**json.loads(done.stdout))


def marked_processes() -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if MARK.encode() in cmdline:
            found.append(entry.name)
    return found


def test_mounts_cannot_be_undone_or_changed(
    identity: str, world: World, request: pytest.FixtureRequest
) -> None:
    result = probe(identity, world, "mounts", request)
    assert "ESCAPED" not in result.output, result.output
    for line in ("CapEff:\t0000000000000000", "CapPrm:\t0000000000000000"):
        assert line in result.output


def test_no_secret_file_or_environment_is_readable(
    identity: str, world: World, request: pytest.FixtureRequest
) -> None:
    result = probe(identity, world, "secrets", request)
    for secret in [*world.secrets.values(), world.env_secret]:
        assert secret not in result.output
    assert "/etc/shadow: Permission denied" in result.output
    assert f"{world.base}/home': No such file or directory" in result.output


def test_unconfined_the_probes_do_find_the_secrets(identity: str, world: World) -> None:
    """The control: the same probes, run without the sandbox, read every secret file and
    reach every socket."""
    found = unconfined(identity, world, "secrets") + unconfined(identity, world, "sockets")
    assert all(secret in found for secret in world.secrets.values())
    assert found.count("CONNECTED") == 3


def unconfined(identity: str, world: World, name: str) -> str:
    command = world.command(name)
    if identity == "root":
        return Sandbox(SETTINGS, None).run(command, world.checkout).output
    done = subprocess.run(
        _as_user("/bin/sh", "-c", command), cwd=world.checkout, env=_user_env(world),
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return done.stdout


def test_nothing_outside_the_checkout_is_writable(
    identity: str, world: World, request: pytest.FixtureRequest
) -> None:
    git_mode = (world.checkout / ".git").stat().st_mode
    result = probe(identity, world, "writes", request)
    assert "ESCAPED" not in result.output, result.output
    assert (world.checkout / "inside.txt").read_text() == "inside\n"
    hooks = world.checkout / ".git" / "hooks"
    assert not (hooks / "pre-push").exists() and not (hooks / "post-checkout").exists()
    assert (world.checkout / ".git").stat().st_mode == git_mode
    for where in ("/", "/usr", "/etc", "/var/tmp", world.base, f"{world.base}/data"):
        assert not Path(where, "escaped").exists()


def test_a_set_user_id_file_never_reaches_the_host_as_roots(
    identity: str, world: World, request: pytest.FixtureRequest
) -> None:
    probe(identity, world, "setuid", request)
    made = (world.checkout / "shell").stat()
    assert made.st_uid == (0 if identity == "root" else USER)
    assert made.st_uid != 0 or not made.st_mode & (stat.S_ISUID | stat.S_ISGID)


def test_host_sockets_and_loopback_are_unreachable(
    identity: str, world: World, request: pytest.FixtureRequest
) -> None:
    result = probe(identity, world, "sockets", request)
    assert "CONNECTED" not in result.output, result.output
    assert [line.split()[0] for line in result.output.splitlines()[:3]] == ["refused"] * 3


def test_a_fork_bomb_is_contained(
    identity: str, world: World, request: pytest.FixtureRequest
) -> None:
    started = time.monotonic()
    result = probe(identity, world, "fork_bomb", request)
    assert time.monotonic() - started < 40
    assert "Cannot fork" in result.output or "Resource temporarily unavailable" in result.output
    assert marked_processes() == []


def test_a_2_gb_allocation_fails(
    identity: str, world: World, request: pytest.FixtureRequest
) -> None:
    if not Path("/usr/bin/python3").exists():
        pytest.skip("the probe allocates with /usr/bin/python3")
    result = probe(identity, world, "memory", request)
    assert "ALLOCATED" not in result.output
    assert "MemoryError" in result.output


def test_file_size_and_tmp_are_capped(
    identity: str, world: World, request: pytest.FixtureRequest
) -> None:
    big = probe(identity, world, "file_size", request)
    assert "File size limit exceeded" in big.output
    assert (world.checkout / "big").stat().st_size <= SETTINGS.limits.file_bytes
    tmp = probe(identity, world, "tmp_size", request)
    assert "No space left on device" in tmp.output and "FULL" in tmp.output


def test_no_daemon_outlives_the_timeout(
    identity: str, world: World, request: pytest.FixtureRequest
) -> None:
    result = probe(identity, world, "daemon_timeout", request)
    assert result.timed_out
    assert marked_processes() == []
    alive = world.checkout / ".alive"
    seen = alive.read_text()
    time.sleep(0.5)
    assert alive.read_text() == seen  # nothing writes it any more


def test_no_daemon_outlives_the_command(
    identity: str, world: World, request: pytest.FixtureRequest
) -> None:
    result = probe(identity, world, "daemon_exit", request)
    assert result.exit_code == 0 and "started" in result.output
    assert result.seconds < 10
    assert marked_processes() == []
