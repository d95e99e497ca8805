"""No unsandboxed fallback: without a bubblewrap that really confines, workers refuse to start.

`agentium worker`, `agentium run` and `agentium local` (its test is in
``tests/local/test_local_refusals.py``) print one line that says what to
install and exit 2. A "bubblewrap" that runs the command without confining it is caught
by the start-up self-test. Only the loudly named AGENTIUM_UNSAFE_NO_SANDBOX setting (off by
default) gives unconfined commands, and every result then says so.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from config.settings import load_settings
from tests.agents.conftest import make_checkout
from tests.fakes.keys import app_key_pair
from workers.agents.sandbox import NOT_SANDBOXED, SandboxUnavailable, open_sandbox
from workers.agents.settings import SandboxSettings
from workers.defaults import load_default_agent_settings
from workers.runtime import build_sandbox

ROOT = Path(__file__).parent.parent.parent
HOW = "apt-get install bubblewrap"
# A "bubblewrap" that ignores its options and runs the command as it is.
NOT_CONFINING = '#!/bin/sh\nwhile [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done\n'
NOT_CONFINING += '[ $# -gt 0 ] || exit 0\nshift\nexec "$@"\n'
BROKEN = "#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n"


@pytest.fixture
def bare_path(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A PATH with git and util-linux's tools but no bubblewrap (in a directory that the
    sandbox's unprivileged user may enter, for the fake bubblewraps below)."""
    tools = Path(tempfile.mkdtemp(prefix="agentium-bin-", dir="/var/tmp"))
    tools.chmod(0o755)
    for name in ("git", "prlimit", "setpriv"):
        found = shutil.which(name)
        if found:
            (tools / name).symlink_to(found)
    monkeypatch.setenv("PATH", str(tools))
    yield tools
    shutil.rmtree(tools)


def test_without_bubblewrap_the_sandbox_is_refused(bare_path: Path) -> None:
    with pytest.raises(SandboxUnavailable, match=HOW) as refused:
        open_sandbox(SandboxSettings())
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("script", "why"),
    [(NOT_CONFINING, "shared the worker's namespaces"), (BROKEN, "No permissions")],
)
def test_a_bubblewrap_that_does_not_confine_is_refused(
    bare_path: Path, script: str, why: str
) -> None:
    fake = bare_path / "bwrap"
    fake.write_text(script)
    fake.chmod(0o755)
    with pytest.raises(SandboxUnavailable, match=why) as refused:
        open_sandbox(SandboxSettings())
    assert HOW in str(refused.value)


def test_the_unsafe_setting_is_off_unless_set() -> None:
    assert load_settings({}).agentium_unsafe_no_sandbox is False
    assert load_settings({"AGENTIUM_UNSAFE_NO_SANDBOX": "1"}).agentium_unsafe_no_sandbox


def test_the_unsafe_setting_runs_unconfined_and_every_result_says_so(
    bare_path: Path, tmp_path: Path
) -> None:
    settings = load_settings({"AGENTIUM_UNSAFE_NO_SANDBOX": "1", "DATA_DIR": str(tmp_path)})
    with pytest.raises(SandboxUnavailable):
        build_sandbox(load_settings({"DATA_DIR": str(tmp_path)}), load_default_agent_settings())
    sandbox = build_sandbox(settings, load_default_agent_settings())
    result = sandbox.run("echo hi", make_checkout(tmp_path))
    assert not sandbox.isolated
    assert result.describe().startswith(NOT_SANDBOXED)
    assert "AGENTIUM_UNSAFE_NO_SANDBOX" in NOT_SANDBOXED


def _cli(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    bare = tmp_path / "empty-bin"
    bare.mkdir(exist_ok=True)
    base = {"PATH": str(bare), "PYTHONPATH": str(ROOT), "DATA_DIR": str(tmp_path / "data")}
    return subprocess.run(
        [sys.executable, "-m", "workers.processes.cli", *args],
        cwd=tmp_path,
        env=base | env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_worker_without_bubblewrap_refuses_to_start(tmp_path: Path) -> None:
    done = _cli(["worker", "--burst"], tmp_path, REDIS_URL="redis://127.0.0.1:1/0")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and HOW in done.stderr, done.stderr
    assert done.stderr.startswith("agentium: bubblewrap")


def test_run_without_bubblewrap_refuses_before_starting_anything(tmp_path: Path) -> None:
    app = {
        "APP_ID": "1",
        "APP_SLUG": "agentium",
        "WEBHOOK_SECRET": "s",
        "PRIVATE_KEY": app_key_pair().private_pem,
    }
    done = _cli(["run"], tmp_path, **app)
    assert done.returncode == 2
    assert HOW in done.stderr and "web on" not in done.stdout
    assert not (tmp_path / "data").exists()  # no Redis was started
