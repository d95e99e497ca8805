"""The environment step on a real checkout, in the real sandbox, without the package index:
what it runs, what it keeps, and what the commands after it get (docs/design.md §10).

Making a virtual environment with pip takes seconds, so one environment is built for the
module (``built``) and read by several tests; builds that only need to exist are cut short
by a one-second timeout.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.agents.conftest import (
    CONNECT,
    SECRETS,
    git,
    loopback_listener,
    make_checkout,
    needs_bwrap,
)
from tests.interpreter import offline_setup_command, python_paths
from workers.agents.environment import Environment, EnvironmentStep, SetupRequest
from workers.agents.environment.store import LOG
from workers.agents.sandbox import Sandbox, open_sandbox
from workers.agents.settings import EnvironmentSettings, SandboxSettings
from workers.gitops.runner import Git

pytestmark = needs_bwrap
STOCK_PATH = "/usr/local/bin:/usr/bin:/bin"  # the production sandbox's PATH
STOCK_ENV = {"LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}


@pytest.fixture(scope="module")
def stock() -> Sandbox:
    """The production sandbox's PATH (a stock Debian has ``python3`` there, no ``python``)."""
    settings = SandboxSettings(timeout_seconds=120, path=STOCK_PATH, env=STOCK_ENV)
    return open_sandbox(settings, readable=python_paths())


def under_tmp() -> Path:
    """A directory right under the host's /tmp, which the sandbox replaces by its own."""
    return Path(tempfile.mkdtemp(prefix="agentium-envs-", dir="/tmp"))


@pytest.fixture
def data_dir() -> Iterator[Path]:
    path = under_tmp()
    yield path
    shutil.rmtree(path, ignore_errors=True)


def step_for(sandbox: Sandbox, data_dir: Path, **settings: float) -> EnvironmentStep:
    home = data_dir / "git-home"
    home.mkdir(exist_ok=True)
    chosen = EnvironmentSettings.model_validate(settings)
    return EnvironmentStep(sandbox, Git(home), data_dir / "envs", chosen)


def request(
    checkout: Path, command: str | None, *, task: str = "o/r#1", network: bool = False
) -> SetupRequest:
    base = git(checkout, "rev-parse", "HEAD").strip()
    return SetupRequest("pytest-dev/iniconfig", checkout, base, command, network, task)


@dataclass
class Built:
    step: EnvironmentStep
    checkout: Path
    environment: Environment
    log: str
    port: int


@pytest.fixture(scope="module")
def built(stock: Sandbox) -> Iterator[Built]:
    """One environment set up with the network and a world full of secrets, after an
    agent changed the checkout: its setup prints its environment, lists its files and
    connects to a server on the host's loopback."""
    data_dir = under_tmp()
    checkout = make_checkout(data_dir / "repo")
    (checkout / "requirements.txt").write_text("evil-package\n")  # an agent's change
    server = loopback_listener()
    port = server.__enter__()
    steps = [
        offline_setup_command(),
        "env; tr '\\0' '\\n' < /proc/self/environ",
        'echo "[$ANTHROPIC_API_KEY]"; ls; git log --oneline',
        CONNECT.format(port=port),
    ]
    step = step_for(stock, data_dir)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in SECRETS.items():
            patch.setenv(name, value)
        environment = step.ensure(request(checkout, "; ".join(steps), network=True))
    log = (environment.root / LOG).read_text()
    yield Built(step, checkout, environment, log, port)
    server.__exit__(None, None, None)
    shutil.rmtree(data_dir, ignore_errors=True)


def test_python_is_resolvable_only_after_the_step_and_the_tests_run(
    stock: Sandbox, built: Built
) -> None:
    before = stock.run("command -v python || echo none", built.checkout).output
    if "none" not in before:
        pytest.skip(f"this host has a python in {STOCK_PATH}: {before.strip()}")
    environment = built.environment
    assert environment.outcome.ok, environment.outcome.tail
    inside = environment.confine(stock, built.checkout)
    found = inside.run(
        "command -v python; python -c 'import sys; print(sys.prefix)'", built.checkout
    )
    assert found.output.split() == [str(environment.venv / "bin" / "python"), str(environment.venv)]
    tests = inside.run("python -m pytest -q -p no:cacheprovider testing", built.checkout)
    assert tests.exit_code == 0, tests.output
    assert "42 passed" in tests.output


def test_no_secret_reaches_the_setup(built: Built) -> None:
    """It runs with the network: nothing of the worker's environment may be in it."""
    assert "VIRTUAL_ENV=" in built.log and "[]" in built.log
    for name, value in SECRETS.items():
        assert value not in built.log
        assert f"{name}=" not in built.log


def test_the_setup_has_the_network_and_the_commands_after_it_do_not(
    stock: Sandbox, built: Built
) -> None:
    assert "connected" in built.log  # the host's loopback included (SECURITY.md)
    probe = CONNECT.format(port=built.port)
    command = built.environment.confine(stock, built.checkout).run(probe, built.checkout)
    assert "connected" not in command.output


def test_the_setup_sees_the_base_commit_not_the_agents_changes(built: Built) -> None:
    assert "requirements.txt" not in built.log
    assert "base" in built.log  # the base commit, read through git in its own clone


def test_commands_cannot_change_the_environment(stock: Sandbox, built: Built) -> None:
    environment = built.environment
    result = environment.confine(stock, built.checkout).run(
        'touch "$VIRTUAL_ENV/x"; rm "$VIRTUAL_ENV/bin/python"', built.checkout
    )
    assert result.output.count("Read-only file system") == 2, result.output
    assert not (environment.venv / "x").exists()
    assert (environment.venv / "bin" / "python").exists()


def test_the_second_time_it_comes_from_the_cache(built: Built) -> None:
    same = request(built.checkout, built.environment.outcome.command, network=True, task="o/r#2")
    again = built.step.ensure(same)
    assert again.outcome.cached and again.root == built.environment.root
    assert again.outcome.seconds == built.environment.outcome.seconds  # the build's time


def test_a_failed_setup_is_an_outcome_and_is_not_retried_within_its_task(
    stock: Sandbox, checkout: Path, data_dir: Path, listener: int
) -> None:
    red = "printf '\\033[31mno such package\\033[0m\\n'"
    command = f"{red}; {CONNECT.format(port=listener)}; exit 3"
    step = step_for(stock, data_dir)
    failed = step.ensure(request(checkout, command, network=False))
    outcome = failed.outcome
    assert (outcome.ok, outcome.exit_code, outcome.cached) == (False, 3, False)
    assert "no such package\n" in outcome.tail
    assert "\x1b" not in outcome.tail  # the colour codes are not shown to the agents
    assert "connected" not in outcome.tail  # setup_network: false
    assert "failed (exit code 3)" in outcome.line()
    assert (failed.venv / "bin" / "python").exists()  # commands still get a python
    assert step.ensure(request(checkout, command)).outcome.cached
    assert not step.ensure(request(checkout, command, task="o/r#9")).outcome.cached


def test_the_setup_is_killed_at_its_timeout(stock: Sandbox, checkout: Path, data_dir: Path) -> None:
    environment = step_for(stock, data_dir, timeout_seconds=1).ensure(request(checkout, "sleep 60"))
    assert environment.outcome.timed_out and not environment.outcome.ok
    assert "killed after" in environment.outcome.line()


def test_old_environments_of_a_repository_are_pruned(
    stock: Sandbox, checkout: Path, data_dir: Path
) -> None:
    step = step_for(stock, data_dir, keep_per_repo=1, timeout_seconds=1)
    first = step.ensure(request(checkout, "echo one"))
    second = step.ensure(request(checkout, "echo two"))
    assert second.root.is_dir() and not first.root.exists()


def test_two_workers_of_one_machine_build_it_once(
    stock: Sandbox, checkout: Path, data_dir: Path
) -> None:
    step = step_for(stock, data_dir, timeout_seconds=2)
    found: list[Environment] = []
    threads = [
        threading.Thread(target=lambda: found.append(step.ensure(request(checkout, "sleep 9"))))
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(e.outcome.cached for e in found) == [False, True]


def test_the_cache_is_per_repository_and_dependency_files_not_per_checkout(
    stock: Sandbox, tmp_path: Path, data_dir: Path
) -> None:
    one = make_checkout(tmp_path / "one")
    two = make_checkout(tmp_path / "two")
    step = step_for(stock, data_dir, timeout_seconds=1)
    first = step.ensure(request(one, "true", task="o/r#1"))
    (two / "README.rst").write_text("not a dependency file\n")
    git(two, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "docs")
    assert step.ensure(request(two, "true", task="o/r#2")).root == first.root
    (two / "pyproject.toml").write_text((two / "pyproject.toml").read_text() + "\n# changed\n")
    git(two, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "deps")
    assert step.ensure(request(two, "true", task="o/r#2")).root != first.root


def test_a_base_commit_that_cannot_be_read_is_a_failed_outcome(
    stock: Sandbox, checkout: Path, data_dir: Path
) -> None:
    missing = SetupRequest("o/r", checkout, "0" * 40, "true", False, "o/r#1")
    environment = step_for(stock, data_dir).ensure(missing)
    assert not environment.outcome.ok
    assert "the base commit could not be read" in environment.outcome.line()
    result = environment.confine(stock, checkout).run("echo still runs", checkout)
    assert result.output.strip() == "still runs"
