"""The stored task: who asked for what, where, and where it stands."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from workers.agents.environment.outcome import EnvironmentOutcome
from workers.controller.state import WorkflowState

SCHEMA_VERSION = 1


def utcnow() -> datetime:
    return datetime.now(UTC)


def task_key(repo: str, issue: int) -> str:
    """Stable task id: repository full name (case-insensitive on GitHub) and issue number."""
    return f"{repo.lower()}#{issue}"


class TaskStatus(StrEnum):
    ACTIVE = "active"
    CANCELLED = "cancelled"
    FINISHED = "finished"


class TaskRecord(BaseModel):
    """Every field has a default or is set at creation, so older stored JSON still loads."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    schema_version: int = SCHEMA_VERSION
    repo: str
    issue: int
    installation_id: int | None = None
    trigger_user: str
    trigger_delivery: str
    status: TaskStatus = TaskStatus.ACTIVE
    status_reason: str | None = None
    pr_number: int | None = None
    issue_title: str = ""
    issue_body: str = ""  # the goal, as the trigger's payload gave it (untrusted text)
    base_sha: str | None = None  # the commit the task's branch starts from
    repo_config: str | None = None  # .github/agentium.yml at base_sha, None when absent
    head_sha: str | None = None  # the task branch's last pushed commit
    # effects a failed push or GitHub call left undone (workers/engine/pending.py), in
    # order, and the local commit to push while a push is among them
    pending_effects: list[dict[str, Any]] = Field(default_factory=list)
    local_head: str | None = None
    steps: int = 0  # saved steps; names the next step job
    version: int = 0  # saves so far; a fenced save must have read the stored one
    environment: EnvironmentOutcome | None = None  # the last environment step's outcome
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    workflow: WorkflowState = Field(default_factory=WorkflowState)

    @property
    def key(self) -> str:
        return task_key(self.repo, self.issue)
