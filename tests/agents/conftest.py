"""Fixtures of the agents' tests: the fake Anthropic server, a real checkout, the sandbox."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anthropic
import pytest

from tests.fakes.anthropic import FakeAnthropic
from tests.interpreter import offline_setup_command, python_paths
from workers.agents.anthropic_adapter import AnthropicAdapter
from workers.agents.environment import Environment, EnvironmentStep, SetupRequest
from workers.agents.prompts import Prompts
from workers.agents.retry import ModelRetryPolicy
from workers.agents.runner import AgentDeps, AgentRunner
from workers.agents.sandbox import Bubblewrap, Sandbox, SandboxUnavailable, open_sandbox
from workers.agents.settings import (
    AgentSettings,
    EnvironmentSettings,
    RetrySettings,
    SandboxSettings,
)
from workers.agents.task import TaskContext
from workers.controller.routing import parse_routing
from workers.defaults import load_default_prices
from workers.engine.statesync import extract_safely
from workers.gitops.checkout import LocalGit
from workers.gitops.runner import Git

REPOS = Path(__file__).parent.parent / "corpus" / "repos"
BWRAP = Bubblewrap.find()
needs_bwrap = pytest.mark.skipif(BWRAP is None, reason="bubblewrap (or prlimit) is not installed")


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def client(fake: FakeAnthropic) -> Iterator[anthropic.Anthropic]:
    with anthropic.Anthropic(api_key=fake.api_key, base_url=fake.base_url, max_retries=0) as c:
        yield c


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def adapter(client: anthropic.Anthropic, sleeps: Sleeps) -> AnthropicAdapter:
    policy = ModelRetryPolicy(RetrySettings(max_attempts=4, base_delay=0.5), random=lambda: 0.0)
    return AnthropicAdapter(
        client, load_default_prices(), policy, sleep=sleeps, now=lambda: 1_696_004_797.0
    )


def git(checkout: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", "-C", str(checkout), *args], capture_output=True, text=True, check=True
    )
    return result.stdout


def make_checkout(parent: Path) -> Path:
    """iniconfig unpacked, ``git init``-ed and committed: a real checkout."""
    with tarfile.open(REPOS / "iniconfig.tar.gz") as archive:
        extract_safely(archive, parent)
    checkout = parent / "iniconfig"
    git(checkout, "init", "-q", "-b", "main")
    git(checkout, "-c", "user.name=t", "-c", "user.email=t@example.com", "add", "-A")
    git(checkout, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base")
    return checkout


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    return make_checkout(tmp_path)


def stock_sandbox_settings() -> SandboxSettings:
    """The production sandbox's PATH, where a stock Debian has ``python3`` but no ``python``:
    commands get ``python`` from the task's environment (the ``environment`` fixture)."""
    path = SandboxSettings().path
    env = {"LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
    return SandboxSettings(timeout_seconds=120, output_cap_bytes=16_384, path=path, env=env)


@pytest.fixture
def sandbox_settings() -> SandboxSettings:
    return stock_sandbox_settings()


def make_sandbox(settings: SandboxSettings) -> Sandbox:
    """The worker's sandbox; where bubblewrap cannot work, the explicitly unconfined one
    (the agent-loop tests still run; the sandbox's own tests skip). This interpreter's
    directories are readable, for the tests' environment (see tests/interpreter.py)."""
    try:
        return open_sandbox(settings, readable=python_paths())
    except SandboxUnavailable:
        return Sandbox(settings, None)


@pytest.fixture
def sandbox(sandbox_settings: SandboxSettings) -> Sandbox:
    return make_sandbox(sandbox_settings)


@pytest.fixture(scope="session")
def environment(tmp_path_factory: pytest.TempPathFactory) -> Environment:
    """An environment made by the bot's environment step for iniconfig, once per test run:
    pytest comes from this interpreter (no package index needed), ``python`` is the
    environment's. Any iniconfig checkout can use it (its PYTHONPATH follows the checkout)."""
    parent = tmp_path_factory.mktemp("environment")
    checkout = make_checkout(parent)
    (parent / "git-home").mkdir()
    step = EnvironmentStep(
        make_sandbox(stock_sandbox_settings()),
        Git(parent / "git-home"),
        parent / "envs",
        EnvironmentSettings(timeout_seconds=120),
    )
    base = git(checkout, "rev-parse", "HEAD").strip()
    request = SetupRequest(
        "pytest-dev/iniconfig", checkout, base, offline_setup_command(), False, "t#1"
    )
    environment = step.ensure(request)
    assert environment.outcome.ok, environment.outcome.tail
    return environment


ROUTING = {"routing": {"default": {"adapter": "anthropic", "model": "claude-sonnet-5-5"}}}


@pytest.fixture
def runner(adapter: AnthropicAdapter, sandbox: Sandbox) -> AgentRunner:
    settings = AgentSettings()
    return AgentRunner(
        AgentDeps(
            adapters={"anthropic": adapter},
            routing=parse_routing(ROUTING),
            sandbox=sandbox,
            prompts=Prompts(),
            settings=settings,
            clock=time.monotonic,
        )
    )


PLAN = "Add `__contains__` to SectionWrapper.\n\n### Task 1: add it\n\n### Task 2: test it\n"
ISSUE_BODY = "SectionWrapper should support `in`: `'name' in config['section']`."


def task_context(checkout: Path, state_dir: Path, **changes: object) -> TaskContext:
    values: dict[str, object] = {
        "issue_number": 7,
        "issue_title": "Support `in` on sections",
        "issue_body": ISSUE_BODY,
        "checkout": checkout,
        "state_dir": state_dir,
        "base_sha": git(checkout, "rev-parse", "HEAD").strip(),
        "plan": PLAN,
    }
    return TaskContext(**{**values, **changes})  # type: ignore[arg-type]


def local_git(checkout: Path) -> LocalGit:
    home = checkout.parent / "git-home"
    home.mkdir(exist_ok=True)
    return LocalGit(checkout, Git(home), author="agentium[bot]", email="bot@example.com")


SECRETS = {
    "PRIVATE_KEY": "-----BEGIN RSA PRIVATE KEY-----abc",
    "ANTHROPIC_API_KEY": "sk-ant-secret",
    "GITHUB_TOKEN": "ghs_secret",
    "WEBHOOK_SECRET": "hook-secret",
    "REDIS_URL": "redis://:pw@localhost:6379/0",
}


@pytest.fixture
def secrets_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)


@contextlib.contextmanager
def loopback_listener() -> Iterator[int]:
    """A TCP server on loopback that a process outside the sandbox can reach."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            connection.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield port
    finally:
        stop.set()
        thread.join()
        server.close()


@pytest.fixture
def listener() -> Iterator[int]:
    with loopback_listener() as port:
        yield port


# python3: the system's, on the sandbox's stock PATH (which has no `python`).
CONNECT = (
    'python3 -c "import socket; '
    "socket.create_connection(('127.0.0.1', {port}), timeout=3); print('connected')\""
)
