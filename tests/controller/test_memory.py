from __future__ import annotations

from workers.controller import memory
from workers.controller.limits import DEFAULT_PRIORITIES
from workers.controller.memory import MemoryEntry, MemoryType
from workers.controller.phases import Phase

T = MemoryType


def entry(
    type_: MemoryType, text: str, phase: Phase = Phase.PLAN, iteration: int = 1
) -> MemoryEntry:
    return MemoryEntry(type=type_, text=text, phase=phase, iteration=iteration)


def test_step_done_resolves_the_matching_pending_step_only() -> None:
    start = memory.add(
        (), [entry(T.STEP_PENDING, "Add rate limiting"), entry(T.STEP_PENDING, "Add docs")]
    )
    done = memory.add(start, [entry(T.STEP_DONE, "add  RATE limiting")])
    assert [(e.type, e.text) for e in done] == [
        (T.STEP_PENDING, "Add docs"),
        (T.STEP_DONE, "add  RATE limiting"),
    ]


def test_duplicates_are_not_stored_twice() -> None:
    once = memory.add((), [entry(T.KEY_FACT, "Uses OAuth2")])
    assert memory.add(once, [entry(T.KEY_FACT, "uses oauth2", iteration=2)]) == once


def test_advance_keeps_key_facts_and_earlier_phase_results() -> None:
    plan = memory.add(
        (),
        [
            entry(T.KEY_FACT, "fact"),
            entry(T.DECISION, "plan decision"),
            entry(T.EVAL_FEEDBACK, "split task 2"),
        ],
    )
    after_plan = memory.on_advance(plan, Phase.PLAN, 2, "PLAN done")
    assert [(e.type, e.text) for e in after_plan] == [
        (T.KEY_FACT, "fact"),
        (T.PHASE_RESULT, "PLAN done"),
    ]
    impl = memory.add(after_plan, [entry(T.FILE_MODIFIED, "a.py", Phase.IMPLEMENT)])
    after_impl = memory.on_advance(impl, Phase.IMPLEMENT, 1, "IMPLEMENT done")
    assert [e.text for e in after_impl] == ["fact", "PLAN done", "IMPLEMENT done"]
    assert after_impl[-1].phase is Phase.IMPLEMENT and after_impl[-1].iteration == 1


def test_plan_feedback_does_not_leak_into_implement() -> None:
    plan = memory.add((), [entry(T.EVAL_FEEDBACK, "PLAN: rename the module")])
    after = memory.on_advance(plan, Phase.PLAN, 1, "PLAN done")
    assert "rename the module" not in memory.render(after, 10_000, DEFAULT_PRIORITIES)


def test_render_prunes_by_priority_not_age() -> None:
    entries = [entry(T.FILE_MODIFIED, f"file{i}.py") for i in range(20)]
    entries.append(entry(T.KEY_FACT, "the newest but most important fact"))
    stored = memory.add((), [entry(T.KEY_FACT, "the oldest fact"), *entries])
    budget = len(stored[0].render()) + len(stored[-1].render()) + 2 + 40
    rendered = memory.render(stored, budget, DEFAULT_PRIORITIES)
    assert "the oldest fact" in rendered
    assert "the newest but most important fact" in rendered
    assert len(rendered) <= budget
    assert "file19.py" not in rendered or "file0.py" not in rendered


def test_render_prefers_newer_entries_within_a_type_and_keeps_order() -> None:
    stored = memory.add((), [entry(T.DECISION, f"decision {i}", iteration=i) for i in range(1, 4)])
    budget = 2 * (len(stored[0].render()) + 1)
    rendered = memory.render(stored, budget, DEFAULT_PRIORITIES)
    assert rendered.splitlines() == [stored[1].render(), stored[2].render()]


def test_render_shows_tags() -> None:
    stored = memory.add((), [entry(T.ERROR, "pytest failed", Phase.IMPLEMENT, 2)])
    assert (
        memory.render(stored, 1000, DEFAULT_PRIORITIES) == "- [IMPLEMENT #2] ERROR: pytest failed"
    )


def test_render_with_a_tiny_budget_is_empty() -> None:
    stored = memory.add((), [entry(T.KEY_FACT, "x" * 50)])
    assert memory.render(stored, 10, DEFAULT_PRIORITIES) == ""


def _entry(kind: MemoryType, text: str) -> MemoryEntry:
    return MemoryEntry(type=kind, text=text, phase=Phase.IMPLEMENT, iteration=1)


def test_kept_memory_is_bounded_oldest_first_key_facts_last() -> None:
    facts = [_entry(MemoryType.KEY_FACT, f"fact {i}") for i in range(3)]
    notes = [_entry(MemoryType.DECISION, f"decision {i}") for i in range(memory.MAX_ENTRIES)]
    kept = memory.add(memory.add((), facts), notes)
    assert len(kept) == memory.MAX_ENTRIES
    assert [e.text for e in kept if e.type is MemoryType.KEY_FACT] == ["fact 0", "fact 1", "fact 2"]
    assert kept[-1].text == f"decision {memory.MAX_ENTRIES - 1}"
    assert "decision 0" not in {e.text for e in kept}  # the oldest went first


def test_a_long_entry_is_cut() -> None:
    (kept,) = memory.add((), [_entry(MemoryType.ERROR, "x" * 10_000)])
    assert len(kept.text) == memory.MAX_TEXT_CHARS and kept.text.endswith("…")
