"""The recovery ladder on GitHub: the question, the status row, the cuts of a NOMERGE."""

from __future__ import annotations

from tests.controller.controller_support import HINT, drive
from workers.controller.outcomes import AssessorDone, JudgeDone, ReviewerDone, WorkerDone
from workers.controller.phases import OverrideRule, Phase
from workers.controller.state import Override
from workers.github.bodies import event_body, nomerge_body, status_body


def test_the_question_says_how_to_answer() -> None:
    data = {"question": "What delimiter?", "reason": "waiting", "resume": "/agentium retry"}
    body = event_body("question:r1:issue:9", "question", data)
    assert body.startswith("<!-- agentium:question:r1:issue:9 -->")
    assert "agentium is stuck and has a question" in body and "What delimiter?" in body
    assert "Reply with a comment on this issue" in body and "`/agentium retry`" in body


def test_the_status_comment_shows_the_ladder_and_its_budgets() -> None:
    iterate = [ReviewerDone("r"), JudgeDone("AGENTIUM_EVAL: ITERATE more")]
    plan = [WorkerDone("plan"), AssessorDone("AGENTIUM_EVAL: COMPLEX"), *iterate]
    state = drive([*plan, WorkerDone("plan"), *iterate], answer_doctor=HINT).state
    body = status_body(state)
    row = next(line for line in body.splitlines() if line.startswith("| Recovery |"))
    assert "doctor x1" in row and "retry_with_fix x1" in row
    assert "1 of 10 doctor calls (0 of 5 strong, 0 of 3 for infrastructure)" in row
    assert "0 of 5 replans" in row
    assert "Recovery: doctor" in body  # the history names every ladder step
    assert "| Recovery |" not in status_body(drive([]).state)


def test_a_nomerge_after_a_reduced_scope_lists_the_cuts() -> None:
    cut = Override(
        phase=Phase.IMPLEMENT,
        iteration=4,
        rule=OverrideRule.SCOPE_REDUCED,
        detail="photos in vCards\nthe CSV export",
    )
    body = nomerge_body("nomerge:r1", "reduced", (cut,))
    assert "the scope was reduced near the end of the budget. Left out:" in body
    assert "  - photos in vCards\n  - the CSV export" in body
