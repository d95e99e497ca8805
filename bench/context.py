"""`make bench`: how much context the agents send, and how much of it the cache can serve.

A scripted COMPLEX task (PLAN 1 iteration, IMPLEMENT 4 iterations, the first walking the
plan's 3 tasks in 3 waves of one subtask each, every wave reviewed and judged, DOCS 1) runs
through the real controller (`step`), the real AgentRunner, prompt building, tool loop and
sandbox, on a real checkout of iniconfig, against the fake Anthropic server, which records
every request. Per call it prints the input size (the prompt's bytes in the cache's order:
tools, system, messages), the bytes shared with the previous call of the same agent, and
that share. Targets:

- the shared (cacheable) prefix is >= 70% of the input of every call after the first of
  its agent;
- the largest request of IMPLEMENT iteration 4 is <= 1.5 x the largest of iteration 1.

    python -m bench.context [--json]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import anthropic

from bench.context_script import ISSUE_BODY, ISSUE_TITLE, replies
from tests.fakes.anthropic import FakeAnthropic, prompt_bytes, shared_prefix
from tests.interpreter import python_paths
from workers.agents.anthropic_adapter import AnthropicAdapter
from workers.agents.prompts import Prompts
from workers.agents.retry import ModelRetryPolicy
from workers.agents.roles import spec_for
from workers.agents.runner import AgentDeps, AgentRunner
from workers.agents.sandbox import Sandbox, SandboxUnavailable, open_sandbox
from workers.agents.settings import SandboxSettings
from workers.agents.task import TaskContext
from workers.controller.effects import RunAgent, RunWave
from workers.controller.limits import WorkflowConfig
from workers.controller.outcomes import BudgetExceeded, Outcome, Start
from workers.controller.phases import Phase
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
CACHE_TARGET = 0.70
GROWTH_TARGET = 1.5


@dataclass(frozen=True)
class Call:
    agent: str
    phase: str
    iteration: int
    size: int
    shared: int

    @property
    def share(self) -> float:
        return self.shared / self.size if self.size else 0.0


def _checkout(parent: Path) -> tuple[Path, str]:
    with tarfile.open(REPO) as archive:
        extract_safely(archive, parent)
    root = parent / "iniconfig"
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", *identity, *args], cwd=root, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, check=True, capture_output=True)
    return root, head.stdout.decode().strip()


def _runner(fake: FakeAnthropic) -> AgentRunner:
    settings = load_default_agent_settings()
    client = anthropic.Anthropic(api_key=fake.api_key, base_url=fake.base_url, max_retries=0)
    retry = ModelRetryPolicy(settings.retry, random=lambda: 0.5)
    prices = load_default_prices()
    adapter = AnthropicAdapter(client, prices, retry, sleep=time.sleep, now=time.time)
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


@dataclass(frozen=True)
class BenchTask:
    """The task as local mode's waves need it (see workers.offline.local_waves)."""

    runner: AgentRunner
    state_dir: Path
    root: Path
    base: str
    workflow: WorkflowConfig

    def context(self, state: WorkflowState) -> TaskContext:
        return TaskContext.from_state(
            state, self.workflow, issue_number=42, issue_title=ISSUE_TITLE,
            issue_body=ISSUE_BODY, checkout=self.root, state_dir=self.state_dir,
            base_sha=self.base,
        )  # fmt: skip

    def checkout(self) -> LocalGit:
        git = Git(self.root.parent / "git-home")
        return LocalGit(self.root, git, author="agentium[bot]", email="bot@example.com")


Runs = list[tuple[RunAgent, int, int]]


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
    checkout, base = _checkout(work)
    (work / "git-home").mkdir(exist_ok=True)
    workflow = load_default_workflow_config()
    task = BenchTask(_runner(fake), work / "state", checkout, base, workflow)
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


def measure(fake: FakeAnthropic, runs: list[tuple[RunAgent, int, int]]) -> list[Call]:
    previous: dict[str, bytes] = {}
    calls = []
    for effect, first, last in runs:
        agent = spec_for(effect).kind.value + (" (subtask)" if effect.subtask else "")
        for recorded in fake.requests[first:last]:
            prompt = prompt_bytes(recorded.json)
            shared = shared_prefix(previous[agent], prompt) if agent in previous else 0
            calls.append(Call(agent, effect.phase.value, effect.iteration, len(prompt), shared))
            previous[agent] = prompt
    return calls


def verdicts(calls: list[Call]) -> dict[str, object]:
    seen: set[str] = set()
    worst = 1.0
    for call in calls:
        if call.agent in seen:
            worst = min(worst, call.share)
        seen.add(call.agent)
    implement = Phase.IMPLEMENT.value
    first = max(c.size for c in calls if c.phase == implement and c.iteration == 1)
    fourth = max(c.size for c in calls if c.phase == implement and c.iteration == 4)
    return {
        "min_cached_share": round(worst, 3),
        "cache_target_met": worst >= CACHE_TARGET,
        "implement_1_largest": first,
        "implement_4_largest": fourth,
        "growth": round(fourth / first, 3),
        "growth_target_met": fourth <= GROWTH_TARGET * first,
        "total_input_bytes": sum(c.size for c in calls),
        "calls": len(calls),
    }


def report(calls: list[Call], summary: dict[str, object]) -> None:
    print(f"{'#':>3} {'agent':<27} {'phase':<9} {'it':>2} {'bytes':>8} {'shared':>8} {'share':>6}")
    for n, call in enumerate(calls, 1):
        share = f"{call.share:6.1%}" if call.shared else "     -"
        print(
            f"{n:>3} {call.agent:<27} {call.phase:<9} {call.iteration:>2} "
            f"{call.size:>8,} {call.shared:>8,} {share}"
        )
    print()
    print(f"total input: {summary['total_input_bytes']:,} bytes in {summary['calls']} calls")
    print(
        f"smallest cached share after an agent's first call: {summary['min_cached_share']:.1%} "
        f"(target >= {CACHE_TARGET:.0%}: {'met' if summary['cache_target_met'] else 'MISSED'})"
    )
    print(
        f"largest request, IMPLEMENT 1: {summary['implement_1_largest']:,} B, IMPLEMENT 4: "
        f"{summary['implement_4_largest']:,} B, x{summary['growth']} (target <= "
        f"x{GROWTH_TARGET}: {'met' if summary['growth_target_met'] else 'MISSED'})"
    )


def main(argv: list[str] | None = None) -> int:
    as_json = "--json" in (sys.argv[1:] if argv is None else argv)
    with tempfile.TemporaryDirectory(prefix="agentium-bench-") as work, FakeAnthropic() as fake:
        runs = run_task(Path(work), fake)
        calls = measure(fake, runs)
    summary = verdicts(calls)
    if as_json:
        print(json.dumps({"calls": [asdict(c) for c in calls], **summary}, indent=2))
    else:
        report(calls, summary)
    return 0 if summary["cache_target_met"] and summary["growth_target_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
