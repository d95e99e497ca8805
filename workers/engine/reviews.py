"""Human reviews of the bot's PR as the controller's HumanReview outcome."""

from __future__ import annotations

from typing import Any

from workers.controller.outcomes import HumanReview
from workers.controller.review import accepts_review
from workers.runtime import Runtime
from workers.tasks.record import TaskRecord

REVIEW_KINDS = frozenset({"review", "review_comment"})


def as_review(item: dict[str, Any]) -> HumanReview | None:
    """A review or review comment as feedback; None for approvals and empty reviews."""
    body = str(item.get("body") or "").strip()
    user = str(item.get("user", ""))
    if item.get("kind") == "review_comment":
        where = f"`{item['path']}` line {item.get('line') or '?'}: " if item.get("path") else ""
        ident = f"comment-{item.get('comment')}"
        return HumanReview(f"{where}{body}", user, (ident,)) if body else None
    state = str(item.get("state", "")).lower()
    if state == "approved" or (not body and state != "changes_requested"):
        return None
    text = body or "Changes requested (no summary given; see the review comments)."
    return HumanReview(text, user, (f"review-{item.get('review')}",))


def reviews_waiting(rt: Runtime, record: TaskRecord) -> bool:
    """A finished task with a PR and queued reviews: the reviews start a new round."""
    if not accepts_review(record.workflow):
        return False
    return any(item.get("kind") in REVIEW_KINDS for item in rt.store.inbox(record.key))
