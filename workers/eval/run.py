"""One instance, start to end: its repository at the base commit, the task run by local
mode's pieces (the same controller, agents, sandbox and environment step, no GitHub), then
the hidden tests on the task's branch.

Everything of the instance stays in its folder: ``source/`` (the repository, with the
branch ``agentium/eval-<id>``), ``state/`` (the task's files: plan, feedback, spend),
``run.log`` (what local mode prints: the plan, each feedback and verdict, the outcome) and
``record.json``. The agents' checkout and the grading worktree are removed at the end.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from config.settings import Settings
from workers.agents.budget import load_ledger
from workers.agents.environment import EnvironmentOutcome
from workers.agents.runner import AgentRunner
from workers.agents.taskfiles import TaskFiles
from workers.controller import gate
from workers.controller.effects import RunAgent, RunWave
from workers.controller.errors import ControllerError
from workers.controller.phases import WORK_PHASES, Phase
from workers.controller.routing import parse_routing
from workers.controller.spend import Spend
from workers.controller.state import WorkflowState
from workers.eval.grade import Grade, Grader
from workers.eval.instance import Instance
from workers.eval.record import Fate, InstanceRecord
from workers.eval.source import SourceError, materialise
from workers.gitops.runner import Git, GitError
from workers.offline import local
from workers.offline.local_printer import EffectsPrinter
from workers.offline.local_repo import IssueFile, LocalError, LocalRepo, open_repo
from workers.repoconfig import EffectiveConfig, RepoConfigError

BRANCH_PREFIX = "agentium/eval-"
log = logging.getLogger("agentium.eval")


@dataclass(frozen=True)
class Harness:
    """What a worker needs to run instances: the settings and the agents for a config."""

    settings: Settings
    runner_for: Callable[[EffectiveConfig], AgentRunner]
    clock: Callable[[], float] = time.monotonic

    @property
    def envs(self) -> Path:
        return self.settings.data_dir.expanduser().resolve() / "envs"


def build_harness(settings: Settings) -> Harness:
    """The real agents, as ``agentium local`` builds them."""
    return Harness(settings, lambda config: local.agents(settings, config))


class CountingPrinter(EffectsPrinter):
    """Local mode's printer, counting the agent calls as they start."""

    calls = 0

    def calling(self, effect: RunAgent | RunWave) -> None:
        self.calls += 1
        super().calling(effect)


def instance_config(
    repo: LocalRepo, base: str, instance: Instance, routing: Mapping[str, Any] | None
) -> EffectiveConfig:
    """The repository's settings at the base commit, the instance's commands and the
    ``--routing`` file over them."""
    config = local.repo_config(repo, base, None)
    changes: dict[str, Any] = {}
    if instance.setup_command is not None:
        changes["setup_command"] = instance.setup_command
    if instance.test_command is not None:
        changes["test_command"] = instance.test_command
    if routing is not None:
        changes["routing"] = parse_routing(routing, base=config.routing)
    return replace(config, **changes)


def fate(state: WorkflowState) -> Fate:
    if state.phase is Phase.COMPLETE:
        return "ready" if state.pr_result == "ready" else "nomerge"
    if state.phase is Phase.NOTHING_TO_DO:
        return "nothing_to_do"
    return "blocked" if state.phase is Phase.BLOCKED else "error"


def spend_of(state_dir: Path) -> Spend:
    return load_ledger(TaskFiles(state_dir).spend_path) or Spend()


@dataclass
class InstanceRun:
    instance: Instance
    number: int  # the instance's place in the suite: the issue number its prompts show
    folder: Path
    harness: Harness
    routing: Mapping[str, Any] | None = None

    def run(self) -> InstanceRecord:
        started = self.harness.clock()
        base = InstanceRecord(
            instance_id=self.instance.instance_id,
            repo=self.instance.repo,
            folder=str(self.folder),
        )
        try:
            with (self.folder / "run.log").open("w", encoding="utf-8") as out:
                record = self._run(base, out)
        except (SourceError, LocalError, GitError, RepoConfigError, ControllerError) as error:
            record = base.model_copy(update={"error": str(error)})
        except Exception as error:  # one instance's failure ends only that instance
            log.exception("instance failed", extra={"instance": self.instance.instance_id})
            record = base.model_copy(update={"error": f"{type(error).__name__}: {error}"})
        wall = round(self.harness.clock() - started, 1)
        record = record.model_copy(update={"wall_seconds": wall})
        (self.folder / "record.json").write_text(record.model_dump_json(indent=2))
        return record

    def _run(self, base: InstanceRecord, out: TextIO) -> InstanceRecord:
        git = Git(self.folder / "git-home")
        (self.folder / "git-home").mkdir(parents=True, exist_ok=True)
        repo = open_repo(materialise(self.instance, self.folder / "source", git), git)
        task = self._task(repo)
        printer = CountingPrinter(out, task.branch)
        local.introduce(task, printer)
        try:
            task = local.set_up_environment(task)
            assert task.environment is not None
            printer.say(f"Environment: {task.environment.outcome.line()}")
            baseline = local.take_baseline(task)
            printer.say(f"Quality gate: {gate.status_line(baseline)}", "")
            state = local.drive(task, printer, baseline)
        finally:
            repo.remove_worktree(task.branch.checkout)
        head = repo.run("rev-parse", task.branch.name).strip()
        grade = self._grade(task, repo, head)
        printer.say("", f"Graded {head[:12]}: {'resolved' if grade.resolved else 'not resolved'}")
        return _filled(base, state, grade, spend_of(task.state_dir), printer.calls, task)

    def _task(self, repo: LocalRepo) -> local.LocalTask:
        base = repo.head()
        config = instance_config(repo, base, self.instance, self.routing)
        runner = self.harness.runner_for(config)
        name = BRANCH_PREFIX + self.instance.instance_id
        branch = local.LocalBranch(repo, name, base, self.folder / "checkout")
        repo.add_worktree(branch.checkout, name, base)
        issue = IssueFile(self.instance.title, self.instance.body)
        state_dir = self.folder / "state"
        return local.LocalTask(
            issue, self.instance.instance_id, branch, state_dir, config, runner,
            self.harness.envs, issue_number=self.number,
        )  # fmt: skip

    def _grade(self, task: local.LocalTask, repo: LocalRepo, head: str) -> Grade:
        environment, sandbox = task.environment, task.runner.deps.sandbox
        assert environment is not None
        grader = Grader(repo.git, lambda tree: environment.confine(sandbox, tree))
        return grader.grade(self.instance, repo.root, head, self.folder / "grade")


def _filled(
    record: InstanceRecord,
    state: WorkflowState,
    grade: Grade,
    spend: Spend,
    calls: int,
    task: local.LocalTask,
) -> InstanceRecord:
    outcome: EnvironmentOutcome | None = task.environment.outcome if task.environment else None
    return record.model_copy(
        update={
            "resolved": grade.resolved,
            "final_phase": state.phase.value,
            "pr": fate(state),
            "path": state.path.value if state.path else None,
            "iterations": {p.value: state.iterations.get(p, 0) for p in WORK_PHASES},
            "agent_calls": calls,
            "model_calls": spend.calls,
            "input_tokens": spend.input_tokens,
            "cache_read_tokens": spend.cache_read_tokens,
            "cache_write_tokens": spend.cache_write_tokens,
            "output_tokens": spend.output_tokens,
            "dollars": round(spend.cost_usd, 4),
            "model_seconds": round(spend.seconds, 1),
            "models": sorted(spend.by_model),
            "still_failing": grade.still_failing,
            "broken": grade.broken,
            "environment": outcome.line() if outcome else "",
            "branch": task.branch.name,
            "error": grade.error,
        }
    )
