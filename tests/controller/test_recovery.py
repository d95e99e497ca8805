"""The recovery ladder's decision table and the doctor's budgets, table-tested."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workers.controller import signals
from workers.controller.phases import Phase
from workers.controller.recovery import (
    DoctorAction,
    DoctorCalls,
    DoctorLimits,
    Situation,
    StuckAction,
    doctor_due,
    replans_left,
    strong_doctor_allowed,
    stuck_action,
)

A = StuckAction


@pytest.mark.parametrize(
    ("same", "used", "cut", "escalation", "replans", "asked", "action"),
    [
        (0, 0.0, False, True, True, False, A.CONTINUE),
        (1, 0.99, False, True, True, False, A.CONTINUE),  # one failure is not a pattern
        (2, 1.0, False, True, True, False, A.STOP),  # nothing left to spend
        (2, 0.85, False, True, True, False, A.REDUCE_SCOPE),
        (3, 0.85, True, True, True, False, A.ESCALATE_MODEL),  # scope already cut once
        (2, 0.1, False, True, True, False, A.ESCALATE_MODEL),
        (2, 0.1, False, False, True, False, A.REPLAN),
        (4, 0.1, False, False, False, False, A.BLOCKED_NEEDS_HUMAN),
        (5, 0.1, False, False, False, True, A.STOP),
    ],
)
def test_stuck_table(
    same: int, used: float, cut: bool, escalation: bool, replans: bool, asked: bool, action: A
) -> None:
    situation = Situation(
        same_failures=same,
        budget_used=used,
        scope_reduced=cut,
        escalation_left=escalation,
        replans_left=replans,
        human_asked=asked,
    )
    assert stuck_action(situation) is action


@given(
    same=st.integers(0, 10),
    used=st.floats(0, 1.5),
    flags=st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans()),
)
def test_the_table_only_stops_or_asks_when_nothing_else_is_left(
    same: int, used: float, flags: tuple[bool, bool, bool, bool]
) -> None:
    cut, escalation, replans, asked = flags
    action = stuck_action(Situation(same_failures=same, budget_used=used, scope_reduced=cut,
                                    escalation_left=escalation, replans_left=replans,
                                    human_asked=asked))  # fmt: skip
    if action is A.STOP:
        assert used >= 1.0 or (asked and not escalation and not replans and (cut or used < 0.8))
    if action is A.REDUCE_SCOPE:
        assert 0.8 <= used < 1.0 and not cut
    if action is A.REPLAN:
        assert replans and not escalation


def test_replans_are_bounded_per_phase_and_task() -> None:
    assert replans_left({}, Phase.IMPLEMENT)
    assert not replans_left({Phase.IMPLEMENT: 1}, Phase.IMPLEMENT)
    assert replans_left({Phase.IMPLEMENT: 1}, Phase.DOCS)
    assert not replans_left({Phase.PLAN: 3, Phase.IMPLEMENT: 2}, Phase.DOCS)


def test_doctor_budgets() -> None:
    limits = DoctorLimits()
    none = DoctorCalls()
    assert not doctor_due(none, limits, Phase.IMPLEMENT, failed_attempts=1, infrastructure=False)
    assert doctor_due(none, limits, Phase.IMPLEMENT, failed_attempts=2, infrastructure=False)
    assert doctor_due(none, limits, Phase.IMPLEMENT, failed_attempts=0, infrastructure=True)
    two = none.plus(Phase.IMPLEMENT, strong=False, infrastructure=False)
    two = two.plus(Phase.IMPLEMENT, strong=True, infrastructure=False)
    assert not doctor_due(two, limits, Phase.IMPLEMENT, failed_attempts=5, infrastructure=False)
    assert doctor_due(two, limits, Phase.DOCS, failed_attempts=2, infrastructure=False)
    many = DoctorCalls(total=10)
    assert not doctor_due(many, limits, Phase.DOCS, failed_attempts=3, infrastructure=True)
    infra = DoctorCalls(infrastructure=3, total=3)
    assert not doctor_due(infra, limits, Phase.PLAN, failed_attempts=0, infrastructure=True)
    assert doctor_due(infra, limits, Phase.PLAN, failed_attempts=2, infrastructure=False)
    assert strong_doctor_allowed(two, limits)
    assert not strong_doctor_allowed(DoctorCalls(strong=5, total=5), limits)
    assert two.describe(limits) == (
        "2 of 10 doctor calls (1 of 5 strong, 0 of 3 for infrastructure)"
    )


def test_doctor_and_scope_cut_signals() -> None:
    text = "Looked at it.\n```\nAGENTIUM_DOCTOR: rollback_provider the model is overloaded\n```"
    advice = signals.parse_doctor(text)
    assert advice is not None and advice.action is DoctorAction.ROLLBACK_PROVIDER
    assert advice.text == "the model is overloaded"
    assert signals.parse_doctor("AGENTIUM_DOCTOR: pray") is None
    assert signals.parse_doctor(None) is None
    cuts = "done\nAGENTIUM_SCOPE_CUT: the CSV export\nAGENTIUM_SCOPE_CUT: docs for the API"
    assert signals.parse_scope_cuts(cuts) == ["the CSV export", "docs for the API"]
    assert signals.DOCTOR_PREFIX in signals.doctor_instruction()
    assert "retry_with_fix|replan|fatal|rollback_provider" in signals.doctor_instruction()
