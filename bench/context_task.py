"""The scripted task of ``bench.context``: a real checkout, runner and controller.

The task runs through the real controller (`step`), the real AgentRunner, prompt building,
tool loop and sandbox, on a real checkout of iniconfig, against the fake Anthropic server,
which records every request. A wave's subtasks run one after another, as local mode runs
them (``workers.offline.local_waves``), each in a worktree of its own, then the join.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import anthropic

from bench.context_script import ISSUE_BODY, ISSUE_TITLE, replies
from tests.fakes.anthropic import FakeAnthropic
from tests.interpreter import python_paths
from workers.agents.anthropic_adapter import AnthropicAdapter
from workers.agents.prompts import Prompts
from workers.agents.retry import ModelRetryPolicy
from workers.agents.runner import AgentDeps, AgentRunner
from workers.agents.sandbox import Sandbox, SandboxUnavailable, open_sandbox
from workers.agents.settings import AgentSettings, SandboxSettings
from workers.agents.task import TaskContext
from workers.controller.effects import RunAgent, RunWave
from workers.controller.limits import WorkflowConfig
from workers.controller.outcomes import BudgetExceeded, Outcome, Start
from workers.controller.state import WorkflowState
from workers.controller.transitions import step
from workers.defaults import (
    load_default_agent_settings,
    load_default_prices,
    load_default_routing,
    load_default_workflow_config,
)
from workers.engine.statesync import extract_safely
from workers.gitops.checkout import LocalGit
from workers.gitops.runner import Git
from workers.offline import local_waves

REPO = Path(__file__).parent.parent / "tests" / "corpus" / "repos" / "iniconfig.tar.gz"

Runs = list[tuple[RunAgent, int, int]]  # each agent run with the range of its requests


def checkout_repo(parent: Path) -> tuple[Path, str]:
    with tarfile.open(REPO) as archive:
        extract_safely(archive, parent)
    root = parent / "iniconfig"
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", *identity, *args], cwd=root, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, check=True, capture_output=True)
    return root, head.stdout.decode().strip()


def local_git(work: Path, checkout: Path) -> LocalGit:
    (work / "git-home").mkdir(exist_ok=True)
    return LocalGit(
        checkout, Git(work / "git-home"), author="agentium[bot]", email="bot@example.com"
    )


def make_runner(fake: FakeAnthropic, settings: AgentSettings) -> AgentRunner:
    client = anthropic.Anthropic(api_key=fake.api_key, base_url=fake.base_url, max_retries=0)
    retry = ModelRetryPolicy(settings.retry, random=lambda: 0.5)
    adapter = AnthropicAdapter(
        client, load_default_prices(), retry, sleep=time.sleep, now=time.time
    )
    bin_dir = str(Path(sys.executable).parent)
    sandbox_settings = settings.sandbox.model_copy(
        update={"path": f"{bin_dir}:{settings.sandbox.path}"}
    )
    deps = AgentDeps(
        adapters={"anthropic": adapter},
        routing=load_default_routing(),
        sandbox=_sandbox(sandbox_settings),
        prompts=Prompts(),
        settings=settings,
        clock=time.monotonic,
    )
    return AgentRunner(deps)


def _sandbox(settings: SandboxSettings) -> Sandbox:
    """The worker's sandbox with this interpreter's virtualenv readable (its ``python``
    runs the tests); unconfined, and saying so, where bubblewrap cannot work."""
    try:
        return open_sandbox(settings, readable=python_paths(settings))
    except SandboxUnavailable:
        return Sandbox(settings, None)


def task_context(work: Path, checkout: Path, base: str, state: WorkflowState) -> TaskContext:
    return TaskContext.from_state(
        state, load_default_workflow_config(), issue_number=42, issue_title=ISSUE_TITLE,
        issue_body=ISSUE_BODY, checkout=checkout, state_dir=work / "state", base_sha=base,
    )  # fmt: skip


@dataclass(frozen=True)
class BenchTask:
    """The task as local mode's waves need it (see workers.offline.local_waves)."""

    runner: AgentRunner
    work: Path
    root: Path
    base: str
    workflow: WorkflowConfig

    @property
    def state_dir(self) -> Path:
        return self.work / "state"

    def context(self, state: WorkflowState) -> TaskContext:
        return task_context(self.work, self.root, self.base, state)

    def checkout(self) -> LocalGit:
        return local_git(self.work, self.root)


def _wave(
    task: BenchTask, fake: FakeAnthropic, wave: RunWave, state: WorkflowState, runs: Runs
) -> Outcome:
    """A wave's subtasks one after another (as local mode runs them), then the join."""
    start = local_waves.wave_start(task, wave, state)
    outputs = []
    for call in wave.calls:
        fake.push(*replies(call, len(runs) + 1))
        first = len(fake.requests)
        done = local_waves.run_subtask(
            task, call, state, start, local_waves.subtask_folder(task, call)
        )
        runs.append((call, first, len(fake.requests)))
        assert not isinstance(done, BudgetExceeded)
        outputs.append(done)
    return local_waves.join(task, wave, state, start, outputs)


def run_task(work: Path, fake: FakeAnthropic) -> Runs:
    """Run the task to the end; each agent run with the range of its requests."""
    checkout, base = checkout_repo(work)
    workflow = load_default_workflow_config()
    runner = make_runner(fake, load_default_agent_settings())
    task = BenchTask(runner, work, checkout, base, workflow)
    now = datetime(2026, 11, 21, tzinfo=UTC)
    transition = step(WorkflowState(), Start(), workflow.limits, now=now)
    runs: Runs = []
    while True:
        pending = [e for e in transition.effects if isinstance(e, RunAgent | RunWave)]
        if not pending:
            return runs
        effect = pending[0]
        outcome: Outcome
        if isinstance(effect, RunWave):
            outcome = _wave(task, fake, effect, transition.state, runs)
        else:
            fake.push(*replies(effect, len(runs) + 1))
            first = len(fake.requests)
            outcome = task.runner.run(effect, task.context(transition.state), task.checkout())
            runs.append((effect, first, len(fake.requests)))
        transition = step(transition.state, outcome, workflow.limits, now=now)
