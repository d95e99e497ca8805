"""What the runner needs to know about the task besides the RunAgent effect."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from workers.agents.environment import Environment
from workers.controller.limits import DEFAULT_PRIORITIES, WorkflowConfig
from workers.controller.memory import Memory, MemoryType
from workers.controller.state import WorkflowState
from workers.controller.testrun import TestRun
from workers.controller.wavestate import WaveWalk


@dataclass(frozen=True)
class TaskContext:
    """One task, as the agents see it.

    ``issue_*`` and ``comments`` are untrusted text as GitHub gave it (cleaned and quoted
    at prompt time). ``plan``, ``review`` and ``memory`` come from the workflow state.
    ``checkout`` is the repository's working tree; ``state_dir`` a private directory of
    the task outside it (see :mod:`workers.agents.taskfiles`). ``base_sha`` is the commit
    the task's branch starts from (diffs for the reviewer are taken against it).
    ``environment`` is what the environment step set up: the agents' commands and the test
    command run inside it (None: the sandbox as it is). ``baseline`` is the test command's
    run on the base commit (None: not taken), what later runs are compared with.
    """

    issue_number: int
    issue_title: str
    issue_body: str
    checkout: Path
    state_dir: Path
    base_sha: str
    plan: str | None = None
    review: str = ""
    memory: Memory = ()
    memory_budget_chars: int = 6000
    memory_priorities: tuple[MemoryType, ...] = DEFAULT_PRIORITIES
    comments: tuple[str, ...] = ()
    test_command: str | None = None
    issue_file: str | None = None  # `agentium local`: the file the issue was read from
    environment: Environment | None = None
    baseline: TestRun | None = None
    plan_findings: tuple[str, ...] = ()
    walk: WaveWalk = field(default_factory=WaveWalk)

    @property
    def issue_ref(self) -> str:
        """How commit messages name the issue: ``#N`` on GitHub, the issue file locally."""
        return self.issue_file or f"#{self.issue_number}"

    @classmethod
    def from_state(
        cls,
        state: WorkflowState,
        workflow: WorkflowConfig,
        *,
        issue_number: int,
        issue_title: str,
        issue_body: str,
        checkout: Path,
        state_dir: Path,
        base_sha: str,
        comments: tuple[str, ...] = (),
        test_command: str | None = None,
        issue_file: str | None = None,
        environment: Environment | None = None,
    ) -> TaskContext:
        return cls(
            issue_number=issue_number,
            issue_title=issue_title,
            issue_body=issue_body,
            checkout=checkout,
            state_dir=state_dir,
            base_sha=base_sha,
            plan=state.plan,
            review=state.review,
            memory=state.memory,
            memory_budget_chars=workflow.memory.budget_chars,
            memory_priorities=workflow.memory.priorities,
            comments=comments,
            test_command=test_command,
            issue_file=issue_file,
            environment=environment,
            baseline=state.baseline,
            plan_findings=state.plan_findings,
            walk=state.walk,
        )
