"""What people asked of a running task, queued in its inbox until its next step.

Every item names its ``kind`` (the discriminator), the login of whoever sent it and the
delivery that carried it. Items are JSON in Redis, validated when the step reads them; an
item that no longer validates (written by another version) is dropped with a warning.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

log = logging.getLogger("agentium.inbox")


class _Item(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    user: str = ""
    delivery: str = ""


class CancelRequest(_Item):
    """Stop the task for good: label removed, bot unassigned, issue or PR closed."""

    kind: Literal["cancel"] = "cancel"
    reason: str = "cancelled"


class CommandRequest(_Item):
    """An ``/agentium <command> [args]`` comment on the issue or the PR."""

    kind: Literal["command"] = "command"
    command: str
    args: str = ""
    comment: int | None = None


class ReviewSubmitted(_Item):
    """A review of the task's PR (approved, commented or changes requested)."""

    kind: Literal["review"] = "review"
    review: int | None = None
    state: str = ""
    body: str = ""


class ReviewComment(_Item):
    """A comment on a line of the task's PR."""

    kind: Literal["review_comment"] = "review_comment"
    comment: int | None = None
    body: str = ""
    path: str | None = None
    line: int | None = None


class IssueReply(_Item):
    """A comment on the issue that is no command: an answer, while the task waits for one
    (the recovery ladder's question, docs/design.md §9)."""

    kind: Literal["reply"] = "reply"
    body: str = ""
    comment: int | None = None


class PullRequestClosed(_Item):
    """The task's PR was closed, merged or not."""

    kind: Literal["pr_closed"] = "pr_closed"
    merged: bool = False


InboxItem = Annotated[
    CancelRequest
    | CommandRequest
    | ReviewSubmitted
    | ReviewComment
    | PullRequestClosed
    | IssueReply,
    Field(discriminator="kind"),
]
Review = ReviewSubmitted | ReviewComment
_ITEM: TypeAdapter[InboxItem] = TypeAdapter(InboxItem)


def encode(item: InboxItem) -> str:
    return item.model_dump_json()


def decode(raw: str | bytes) -> InboxItem | None:
    """The item, or None (logged) when it does not validate."""
    try:
        return _ITEM.validate_json(raw)
    except ValidationError as error:
        log.warning("inbox item dropped", extra={"errors": error.error_count()})
        return None


def decode_all(raws: Iterable[str | bytes]) -> list[InboxItem]:
    return [item for item in map(decode, raws) if item is not None]
