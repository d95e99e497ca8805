"""Commands run scrubbed, confined, time-limited and with capped output.

The escapes an attacker would try (as root and as an ordinary user) are in
``tests/security/test_sandbox_escapes.py``; what a command can bind in
``test_sandbox_binds.py``; the start-up check in ``test_sandbox_check.py``."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.agents.conftest import CONNECT, SECRETS, needs_bwrap
from workers.agents.sandbox import NOT_SANDBOXED, Sandbox, scrubbed_env
from workers.agents.settings import SandboxSettings


@pytest.mark.usefixtures("secrets_in_environment")
@pytest.mark.parametrize("isolated", [True, False])
def test_environment_shows_no_secret(sandbox: Sandbox, checkout: Path, isolated: bool) -> None:
    if isolated and not sandbox.isolated:
        pytest.skip("bubblewrap does not work here")
    sandbox = sandbox if isolated else Sandbox(sandbox.settings, None)
    result = sandbox.run("env; cat /proc/self/environ | tr '\\0' '\\n'", checkout)
    assert result.exit_code == 0
    for value in SECRETS.values():
        assert value not in result.output
    for name in SECRETS:
        assert f"{name}=" not in result.output
    assert "PATH=" in result.output


def test_secret_like_names_never_pass_the_allow_list() -> None:
    settings = SandboxSettings(env={"MY_API_KEY": "x", "NPM_TOKEN": "y", "LANG": "C"})
    assert scrubbed_env(settings, "/tmp") == {"PATH": settings.path, "HOME": "/tmp", "LANG": "C"}


@needs_bwrap
def test_network_is_unreachable_in_the_sandbox(
    sandbox: Sandbox, checkout: Path, listener: int
) -> None:
    outside = Sandbox(sandbox.settings, None).run(CONNECT.format(port=listener), checkout)
    assert "connected" in outside.output  # the listener is reachable without the sandbox
    inside = sandbox.run(CONNECT.format(port=listener), checkout)
    assert inside.exit_code != 0
    assert "connected" not in inside.output
    assert "ConnectionRefusedError" in inside.output or "unreachable" in inside.output


@needs_bwrap
def test_a_run_may_ask_for_the_network(sandbox: Sandbox, checkout: Path, listener: int) -> None:
    """The environment step of a task installs dependencies: its run has the network."""
    inside = sandbox.run(CONNECT.format(port=listener), checkout, network=True)
    assert "connected" in inside.output, inside.output


@needs_bwrap
def test_system_is_read_only_and_checkout_writable(sandbox: Sandbox, checkout: Path) -> None:
    result = sandbox.run("echo x > made.txt && touch /usr/agentium-x; echo rc=$?", checkout)
    assert (checkout / "made.txt").read_text() == "x\n"
    assert "Read-only file system" in result.output
    hooks = sandbox.run("echo evil > .git/hooks/pre-commit", checkout)
    assert hooks.exit_code != 0
    assert not (checkout / ".git" / "hooks" / "pre-commit").exists()


def test_a_command_that_never_ends_is_killed(sandbox: Sandbox, checkout: Path) -> None:
    started = time.monotonic()
    result = sandbox.run("sleep 300 & sleep 300", checkout, timeout=1)
    assert time.monotonic() - started < 10
    assert result.timed_out
    assert result.exit_code is None
    assert "killed after the timeout" in result.describe()


def test_100_mb_of_output_is_capped(sandbox: Sandbox, checkout: Path) -> None:
    command = "echo THE-START; head -c 100000000 /dev/zero | tr '\\0' 'a'; echo; echo THE-END"
    result = sandbox.run(command, checkout)
    assert result.total_bytes > 100_000_000
    assert result.truncated
    assert len(result.output) < sandbox.settings.output_cap_bytes + 100
    assert result.output.startswith("THE-START\naaa")  # the head and the tail are kept
    assert result.output.rstrip().endswith("THE-END")
    assert "output cut" in result.describe()


def test_unsandboxed_runs_say_so(sandbox_settings: SandboxSettings, checkout: Path) -> None:
    result = Sandbox(sandbox_settings, None).run("echo hi", checkout)
    assert not result.sandboxed
    assert result.describe().startswith(NOT_SANDBOXED)


def test_sandboxed_runs_report_it(sandbox: Sandbox, checkout: Path) -> None:
    result = sandbox.run("echo hi", checkout)
    assert result.sandboxed is sandbox.isolated
    assert "hi" in result.output
    assert result.describe().startswith("[exit code 0") is sandbox.isolated
