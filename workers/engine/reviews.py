"""Human reviews of the bot's PR as the controller's HumanReview outcome."""

from __future__ import annotations

from workers.controller.outcomes import HumanReview
from workers.controller.review import accepts_review
from workers.runtime import Runtime
from workers.tasks.inbox import Review, ReviewComment, ReviewSubmitted
from workers.tasks.record import TaskRecord


def as_review(item: Review) -> HumanReview | None:
    """A review or review comment as feedback; None for approvals and empty reviews."""
    body = item.body.strip()
    if isinstance(item, ReviewComment):
        where = f"`{item.path}` line {item.line or '?'}: " if item.path else ""
        ident = f"comment-{item.comment}"
        return HumanReview(f"{where}{body}", item.user, (ident,)) if body else None
    state = item.state.lower()
    if state == "approved" or (not body and state != "changes_requested"):
        return None
    text = body or "Changes requested (no summary given; see the review comments)."
    return HumanReview(text, item.user, (f"review-{item.review}",))


def reviews_waiting(rt: Runtime, record: TaskRecord) -> bool:
    """A finished task with a PR and queued reviews: the reviews start a new round."""
    if not accepts_review(record.workflow):
        return False
    return any(
        isinstance(item, ReviewSubmitted | ReviewComment) for item in rt.store.inbox(record.key)
    )
