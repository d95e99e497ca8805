"""The human review loop: a review of the PR after COMPLETE starts a new review round.

- :func:`accepts_review` is True only for a COMPLETE task with a PR (ready or NOMERGE).
  While the task runs, or when it is BLOCKED or NOTHING_TO_DO, the caller keeps the review
  queued (``step`` leaves the state unchanged and does nothing) and applies it, batched with
  :func:`batch_reviews`, once the task is COMPLETE.
- A round starts a new IMPLEMENT iteration 1 with a fresh worker; the review text is the
  feedback (``Feedback.review``, its items become the action items, last), with a one-line
  directive as the judge line and ``Feedback.human`` naming the reviewer. Then the normal
  loop (reviewer, judge), DOCS, and COMPLETE again: MarkReady, or NOMERGE by the rules.
- Limits: each round gets the path's IMPLEMENT and DOCS limits afresh (the counters
  restart at 1); PLAN is not run again and the plan's tasks are not walked again. The
  number of rounds is not limited: each one is asked for by a human.
- Overrides are per round: ``controller_overrode`` starts False in each round, so a round
  the judge finishes cleanly ends ready; ``overrides`` keep every round's (tagged with it).
- A round that commits nothing is not BLOCKED for "no changes" (the PR has commits; the
  judge decides whether the review needed any); the reply says no commits were pushed.
- When the round ends (COMPLETE, or a final BLOCKED; not a resumable pause) a
  ``REVIEW_REPLY`` comment on the PR names the reviews and says what was done.
"""

from __future__ import annotations

from collections.abc import Sequence

from workers.controller import memory
from workers.controller.effects import CommentKind, Finish, OpenOrUpdatePR, PostComment, Target
from workers.controller.memory import MemoryEntry, MemoryType
from workers.controller.moves import Context, Transition, enter_iteration, first_line, record
from workers.controller.outcomes import HumanReview
from workers.controller.phases import Phase, Role
from workers.controller.state import Feedback, ReviewRound, WorkflowState


def accepts_review(state: WorkflowState) -> bool:
    """Whether ``step`` applies a :class:`HumanReview` now (else: keep it queued)."""
    return state.phase is Phase.COMPLETE and state.pr_open


def _unique(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item for item in items if item))


def batch_reviews(reviews: Sequence[HumanReview]) -> HumanReview:
    """Queued reviews as one: texts in order, users and review ids without repeats."""
    if not reviews:
        raise ValueError("no reviews to batch")
    if len(reviews) == 1:
        return reviews[0]
    text = "\n\n---\n\n".join(r.text.strip() for r in reviews if r.text.strip())
    users = _unique([r.user for r in reviews])
    ids = _unique([i for r in reviews for i in r.reviews])
    return HumanReview(text=text, user=", ".join(users), reviews=ids)


def mention(user: str) -> str:
    names = [name.strip() for name in user.split(",") if name.strip()]
    return ", ".join(f"@{name}" for name in names) or "a reviewer"


def start_round(state: WorkflowState, ctx: Context, review: HumanReview) -> Transition:
    """Open review round ``n + 1`` and run the IMPLEMENT worker with the review as feedback."""
    number = state.round + 1
    opened = ReviewRound(
        number=number,
        user=review.user,
        reviews=review.reviews,
        text=review.text,
        at=ctx.now,
        was_ready=state.pr_result == "ready",
    )
    fresh = state.model_copy(
        update={
            "review_rounds": (*state.review_rounds, opened),
            "controller_overrode": False,
            "no_signal_count": 0,
            "end_reason": "",
        }
    )
    who = mention(review.user)
    ids = f" ({', '.join(review.reviews)})" if review.reviews else ""
    summary = f"Review round {number} by {who}{ids}: {first_line(review.text)}"
    noted = record(fresh, ctx, Role.HUMAN, summary, detail=review.text)
    entry = MemoryEntry(
        type=MemoryType.EVAL_FEEDBACK,
        text=f"review round {number} by {who}: {first_line(review.text)}",
        phase=Phase.IMPLEMENT,
        iteration=0,
    )
    remembered = noted.model_copy(update={"memory": memory.add(noted.memory, [entry])})
    directive = f"address every point of the pull request review by {who}"
    feedback = Feedback(review=review.text, judge=directive, human=review.user)
    return enter_iteration(remembered, ctx, Phase.IMPLEMENT, 1, feedback)


def _phase_line(state: WorkflowState, phase: Phase) -> str | None:
    entries = [h for h in state.history if h.round == state.round and h.phase is phase]
    if not entries:
        return None
    line = f"{phase}: {max(h.iteration for h in entries)} iteration(s)"
    workers = [h for h in entries if h.role is Role.WORKER and h.excerpt]
    if workers:
        line += f"; worker: {workers[-1].excerpt}"
    judged = [h for h in entries if h.role is Role.JUDGE and h.verdict and not h.wave]
    if judged:
        said = f" ({judged[-1].excerpt})" if judged[-1].excerpt else ""
        line += f"; judge: {judged[-1].verdict}{said}"
    return line


def round_reply(state: WorkflowState) -> PostComment:
    """The ``REVIEW_REPLY`` for the round that just ended (on the PR)."""
    current = state.review_round
    if current is None:
        raise ValueError("no review round")
    result = state.pr_result if state.phase is Phase.COMPLETE else "blocked"
    lines = [line for p in (Phase.IMPLEMENT, Phase.DOCS) if (line := _phase_line(state, p))]
    lines.append("new commits pushed to the PR" if current.pushed else "no new commits")
    lines.append(f"BLOCKED: {state.end_reason}" if result == "blocked" else state.end_reason)
    data = {
        "round": str(current.number),
        "reviews": ",".join(current.reviews),
        "user": current.user,
        "result": result,
        "commits": "true" if current.pushed else "false",
        "summary": "\n".join(f"- {line}" for line in lines),
        "reason": state.end_reason,
    }
    return PostComment(Target.PR, CommentKind.REVIEW_REPLY, data)


def finish_round(before: WorkflowState, transition: Transition) -> Transition:
    """Within a round: note pushed commits; when the round ends, add its reply (before
    ``Finish``)."""
    after = transition.state
    current = after.review_round
    if current is None or after.round != before.round:
        return transition  # the task's first run, or the round just started
    if not current.pushed and any(isinstance(e, OpenOrUpdatePR) for e in transition.effects):
        current = current.model_copy(update={"pushed": True})
        after = after.model_copy(update={"review_rounds": (*after.review_rounds[:-1], current)})
    effects = transition.effects
    if not before.phase.is_terminal and after.phase.is_terminal and after.paused is None:
        at = next((i for i, e in enumerate(effects) if isinstance(e, Finish)), len(effects))
        effects = (*effects[:at], round_reply(after), *effects[at:])
    return Transition(after, effects)
