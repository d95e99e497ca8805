"""``agentium local``: the bot's PLAN -> IMPLEMENT -> DOCS loop on a local git repository.

    agentium local --repo PATH --issue-file ISSUE.md [--branch NAME] [--scenario SCENARIO.yml]

For people evaluating the bot without a GitHub App. The real controller and the real agents
(Anthropic, ``ANTHROPIC_API_KEY`` from the environment or ``.env``; ``ANTHROPIC_BASE_URL``
respected) work on the branch ``agentium/local-<slug>`` (or ``--branch``), created from the
repository's HEAD in a worktree under ``DATA_DIR``; the person's own working tree and other
branches are not touched and nothing is pushed. The issue file's first markdown heading is
the title, the rest the body. The repository's ``.github/agentium.yml`` at HEAD applies;
``--scenario`` takes the workflow limits from a scenario file's ``settings`` (as
``agentium simulate`` does). Before the agents, the environment step sets up the repository's
dependencies as on a worker (``DATA_DIR/envs``) and the test command runs once on the base
commit (the quality gate's baseline). GitHub effects are printed: the plan, each
iteration's reviewer feedback and judge verdict, the outcome, and the branch's commits.

Exit status: 0 the task ended (ready, NOMERGE or nothing to do), 1 BLOCKED, 2 it could not
start (missing key, not a repository, dirty tree, bad issue file or settings, no working
bubblewrap), 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from config.settings import Settings, SettingsError, load_settings
from workers.agents.budget import load_ledger
from workers.agents.environment import Environment, EnvironmentStep, SetupRequest
from workers.agents.runner import AgentRunner
from workers.agents.sandbox import SandboxUnavailable
from workers.agents.task import TaskContext
from workers.agents.taskfiles import TaskFiles
from workers.controller import gate
from workers.controller.effects import RunWave
from workers.controller.errors import ControllerError
from workers.controller.outcomes import Outcome, Start
from workers.controller.phases import Phase
from workers.controller.spend import Spend
from workers.controller.state import WorkflowState
from workers.controller.testrun import TestRun
from workers.controller.transitions import pending_agent, step
from workers.engine.repo_settings import config_text_at, effective_config
from workers.gitops.checkout import LocalGit
from workers.gitops.runner import Git
from workers.offline.local_printer import EffectsPrinter
from workers.offline.local_repo import IssueFile, LocalError, LocalRepo, open_repo, read_issue, slug
from workers.offline.local_waves import run_wave
from workers.offline.scenario import load_scenario
from workers.repoconfig import EffectiveConfig, load_repo_config_defaults
from workers.runtime import anthropic_adapter, build_runner

LOCAL_ISSUE = 0  # no GitHub issue: prompts see #0, commit messages name the issue file
AUTHOR = ("agentium", "agentium@localhost")


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class LocalBranch:
    """The task's branch and the worktree the agents commit in (the Checkout seam's root)."""

    repo: LocalRepo
    name: str
    base: str
    checkout: Path

    def head(self) -> str:
        return self.repo.short(self.name)

    def log(self) -> list[str]:
        return self.repo.log(self.base, self.name)

    def describe(self) -> str:
        base = self.repo.short(self.base)
        count = len(self.log())
        return (
            f"Branch {self.name} in {self.repo.root}: {count} commit(s) on top of {base} "
            f"(git log --oneline {base}..{self.name}); nothing was pushed"
        )


@dataclass(frozen=True)
class LocalTask:
    issue: IssueFile
    issue_name: str  # the issue file's name, as commit messages give it
    branch: LocalBranch
    state_dir: Path
    config: EffectiveConfig
    runner: AgentRunner
    envs: Path  # DATA_DIR/envs: the environments' cache, shared with workers on this machine
    environment: Environment | None = None
    issue_number: int = LOCAL_ISSUE  # agentium eval: the instance's number in its suite

    def context(self, state: WorkflowState) -> TaskContext:
        return TaskContext.from_state(
            state,
            self.config.workflow,
            issue_number=self.issue_number,
            issue_title=self.issue.title,
            issue_body=self.issue.body,
            checkout=self.branch.checkout,
            state_dir=self.state_dir,
            base_sha=self.branch.base,
            test_command=self.config.test_command,
            issue_file=self.issue_name,
            environment=self.environment,
        )

    def checkout(self) -> LocalGit:
        git = self.branch.repo.git
        return LocalGit(self.branch.checkout, git, author=AUTHOR[0], email=AUTHOR[1])


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentium local",
        description="Run the bot's loop on a local git repository (no GitHub App needed).",
    )
    parser.add_argument(
        "--repo", required=True, type=Path, help="a git repository with a clean working tree"
    )
    parser.add_argument("--issue-file", required=True, type=Path, help="# Title, then the body")
    parser.add_argument("--branch", default=None, help="default: agentium/local-<slug>")
    parser.add_argument(
        "--scenario",
        default=None,
        type=Path,
        help="use the workflow limits of this scenario file's settings",
    )
    return parser


def api_settings() -> Settings:
    settings = load_settings()
    try:
        settings.require("anthropic_api_key")
    except SettingsError as error:
        raise SettingsError(f"{error} (set it in the environment or in .env)") from None
    return settings


def task_dir(settings: Settings, repo: LocalRepo, name: str) -> Path:
    """A fresh directory for this run under DATA_DIR, which must lie outside the repo."""
    data = settings.data_dir.expanduser().resolve()
    if data.is_relative_to(repo.root):
        raise LocalError(
            f"DATA_DIR ({data}) is inside the repository {repo.root}; "
            "set DATA_DIR to a directory outside it"
        )
    stamp = utc_now().strftime("%Y%m%dT%H%M%S%f")
    folder = data / "local" / f"{repo.root.name}__{name}__{stamp}"
    folder.mkdir(parents=True)
    return folder


def repo_config(repo: LocalRepo, base: str, scenario: Path | None) -> EffectiveConfig:
    """The repository's ``.github/agentium.yml`` at ``base`` over the defaults (as a task on
    GitHub reads it); the scenario's limits over both."""
    config = effective_config(
        load_repo_config_defaults(), config_text_at(repo.git, repo.root, base)
    )
    if scenario is None:
        return config
    limits = load_scenario(scenario).settings.limits
    return replace(config, workflow=config.workflow.model_copy(update={"limits": limits}))


def agents(settings: Settings, config: EffectiveConfig) -> AgentRunner:
    """The real agents with the repository's routing and budgets."""
    runner = build_runner(
        settings, config.agents, {"anthropic": anthropic_adapter(settings, config.agents)}
    )
    return AgentRunner(replace(runner.deps, routing=config.routing))


def spent(state_dir: Path) -> str:
    """The agents' spend, from their ledger in the task's directory."""
    spend = load_ledger(TaskFiles(state_dir).spend_path) or Spend()
    figures = f"{spend.total_tokens:,} tokens, ${spend.cost_usd:.2f}, {spend.seconds:,.0f} s"
    return f"Model spend: {figures} in {spend.calls} model call(s)"


def prepare(args: argparse.Namespace, settings: Settings) -> LocalTask:
    """Check everything, then create the branch and its worktree (the last step): a
    refusal leaves nothing behind, not even DATA_DIR."""
    issue = read_issue(args.issue_file)
    home = settings.data_dir.expanduser().resolve() / "git-home"  # made once checks pass
    repo = open_repo(args.repo.expanduser().resolve(), Git(home))
    name = args.branch or f"agentium/local-{slug(issue.title)}"
    repo.check_branch_name(name)
    base = repo.head()
    config = repo_config(repo, base, args.scenario)
    runner = agents(settings, config)
    folder = task_dir(settings, repo, slug(name))
    home.mkdir(parents=True, exist_ok=True)
    branch = LocalBranch(repo, name, base, folder / "checkout")
    repo.add_worktree(branch.checkout, name, base)
    envs = settings.data_dir.expanduser().resolve() / "envs"
    return LocalTask(issue, args.issue_file.name, branch, folder / "state", config, runner, envs)


def set_up_environment(task: LocalTask) -> LocalTask:
    """The environment step, as a worker runs it before PLAN (docs/design.md §10)."""
    branch, config = task.branch, task.config
    setup = EnvironmentStep(
        task.runner.deps.sandbox, branch.repo.git, task.envs, config.agents.environment
    )
    request = SetupRequest(
        repo=f"local/{branch.repo.root.name}",
        checkout=branch.checkout,
        base_sha=branch.base,
        command=config.setup_command,
        network=config.network_for_setup,
        task=branch.name,
    )
    return replace(task, environment=setup.ensure(request))


def take_baseline(task: LocalTask) -> TestRun:
    """The test command on the base commit, in the environment (docs/design.md §12)."""
    return task.runner.baseline(task.context(WorkflowState()), task.checkout())


def drive(task: LocalTask, printer: EffectsPrinter, baseline: TestRun | None) -> WorkflowState:
    """Start the controller and answer every agent call it asks for, one at a time."""
    limits, rules = task.config.limits, task.config.plan_rules
    state = WorkflowState()
    start = Start(baseline=baseline, title=task.issue.title, body=task.issue.body)
    transition = step(state, start, limits, now=utc_now(), rules=rules)
    printer.show(state, transition)
    while (effect := pending_agent(transition.state, limits)) is not None:
        printer.calling(effect)
        outcome: Outcome
        if isinstance(effect, RunWave):
            outcome = run_wave(task, effect, transition.state)
        else:
            outcome = task.runner.run(effect, task.context(transition.state), task.checkout())
        before = transition.state
        transition = step(before, outcome, limits, now=utc_now(), rules=rules)
        printer.show(before, transition)
    return transition.state


def introduce(task: LocalTask, printer: EffectsPrinter) -> None:
    branch = task.branch
    printer.say(
        f"agentium local: {task.issue.title}",
        f"  repository {branch.repo.root} ({branch.repo.current_branch()} untouched)",
        f"  branch {branch.name} from {branch.repo.short(branch.base)}, "
        f"worked on in {branch.checkout}",
        f"  task files in {task.state_dir}",
        "",
        "Initial Phase: PLAN",
    )


def run(task: LocalTask, out: TextIO) -> int:
    printer = EffectsPrinter(out, task.branch)
    introduce(task, printer)
    try:
        task = set_up_environment(task)
        assert task.environment is not None
        printer.say(f"Environment: {task.environment.outcome.line()}")
        baseline = take_baseline(task)
        printer.say(f"Quality gate: {gate.status_line(baseline)}", "")
        state = drive(task, printer, baseline)
    except KeyboardInterrupt:
        printer.say("", "Interrupted.", task.branch.describe())
        return 130
    finally:
        task.branch.repo.remove_worktree(task.branch.checkout)
        printer.say(spent(task.state_dir))
    return 1 if state.phase is Phase.BLOCKED else 0


def main(argv: Sequence[str]) -> int:
    args = parser().parse_args(list(argv))
    try:
        task = prepare(args, api_settings())
    except (LocalError, SettingsError, ControllerError, SandboxUnavailable) as error:
        print(f"agentium local: {error}", file=sys.stderr)
        return 2
    return run(task, sys.stdout)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
