"""The per-step collaborators of one task: its GitHub client, git workspace and effects."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from workers.agents.budget import load_ledger
from workers.agents.environment import Environment
from workers.agents.runner import AgentRunner
from workers.agents.task import TaskContext
from workers.agents.taskfiles import TaskFiles
from workers.controller.spend import Spend
from workers.engine.leftovers import claim
from workers.engine.statesync import StateSync
from workers.github.client import GitHubClient
from workers.github.effects import GitHubEffects, TaskInfo
from workers.github.heads import remote_heads
from workers.github.refs import IssueRef
from workers.gitops.cache import RepoCache, cache_path
from workers.gitops.checkout import LocalGit
from workers.gitops.runner import Git
from workers.gitops.workspace import BRANCH_PREFIX, GitWorkspace, workspace_path
from workers.repoconfig import EffectiveConfig
from workers.runtime import Runtime
from workers.tasks.lease import Lease
from workers.tasks.record import TaskRecord


class CallWatcher(Protocol):
    def calling(self) -> None:
        """A model call is about to be made."""


class TaskSetupError(RuntimeError):
    """The task lacks what it needs to run (e.g. no installation id)."""


@dataclass
class TaskSession:
    record: TaskRecord
    ref: IssueRef
    gh: GitHubClient
    workspace: GitWorkspace
    effects: GitHubEffects
    state_dir: Path
    files: StateSync
    lease: Lease
    environment: Environment | None = None  # set up by the driver before an agent runs

    def checkout(self) -> LocalGit:
        return self.workspace.checkout()

    def runner(
        self, rt: Runtime, config: EffectiveConfig, watcher: CallWatcher | None = None
    ) -> AgentRunner:
        """The agents with the repository's routing and budgets; a run stops at its next
        model call once the step's lease is known lost (docs/design.md §7). A ``watcher``
        is told before every model call (the first step's work beside waits for it)."""
        lease = self.lease

        def before_call() -> None:
            lease.raise_if_lost()
            if watcher is not None:
                watcher.calling()

        deps = replace(
            rt.runner.deps, routing=config.routing, settings=config.agents, interrupt=before_call
        )
        return AgentRunner(deps)

    def spend(self) -> Spend:
        """What the task's agents have spent so far (their ledger in the state directory)."""
        return load_ledger(TaskFiles(self.state_dir).spend_path) or self.record.workflow.spend

    def agent_context(self, config: EffectiveConfig) -> TaskContext:
        record = self.record
        if record.base_sha is None:
            raise TaskSetupError("the task has no base commit yet")
        return TaskContext.from_state(
            record.workflow,
            config.workflow,
            issue_number=record.issue,
            issue_title=record.issue_title,
            issue_body=record.issue_body,
            checkout=self.workspace.path,
            state_dir=self.state_dir,
            base_sha=record.base_sha,
            test_command=config.test_command,
            environment=self.environment,
        )


def open_session(rt: Runtime, record: TaskRecord, lease: Lease) -> TaskSession:
    """The step's collaborators; every write that matters is fenced by `lease`."""
    if record.installation_id is None:
        raise TaskSetupError("the delivery that started the task named no installation")
    installation = record.installation_id
    ref = IssueRef.parse(record.repo, record.issue)
    gh = rt.github.installation(installation)
    root = rt.data_dir
    workspace = task_workspace(rt, record, workspace_path(root, record.repo, record.issue))
    info = TaskInfo(ref, record.trigger_user, run=record.trigger_delivery)
    effects = GitHubEffects(gh, rt.redis, info, workspace, fence=lease.check)
    state = state_dir(root, record)
    for path in (workspace.path, state):  # the machine's sweep keeps them while in use
        claim(path, record.key)
    files = StateSync(rt.redis, record.key, state, lease=lease)
    return TaskSession(record, ref, gh, workspace, effects, state, files, lease)


TASKS = "tasks"  # under DATA_DIR: the machine's copy of each task's state directory


def task_workspace(rt: Runtime, record: TaskRecord, path: Path) -> GitWorkspace:
    """A checkout of the task's repository and branch at ``path`` (the task's own, or a
    subtask's)."""
    if record.installation_id is None:
        raise TaskSetupError("the delivery that started the task named no installation")
    installation = record.installation_id
    (rt.data_dir / "git-home").mkdir(parents=True, exist_ok=True)
    git = Git(rt.data_dir / "git-home")
    gh, branch = rt.github.installation(installation), f"{BRANCH_PREFIX}{record.issue}"
    return GitWorkspace(
        path,
        f"{rt.settings.git_base_url}/{record.repo}.git",
        record.issue,
        rt.identity,
        token=lambda: rt.github.token(installation),
        git=git,
        cache=RepoCache(cache_path(rt.data_dir, record.repo), git),
        heads=lambda: remote_heads(gh, IssueRef.parse(record.repo, record.issue), branch),
    )


def state_dir(root: Path, record: TaskRecord) -> Path:
    """The task's private files (plan, feedback, sessions), outside any checkout."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", record.repo.replace("/", "__"))
    return root / TASKS / f"{safe}__{record.issue}__{record.trigger_delivery[:12]}"
