"""The summary, the table and ``agentium eval compare`` on records made by hand."""

from __future__ import annotations

import io
from pathlib import Path

from workers.eval import cli
from workers.eval.record import Fate, InstanceRecord, Results, summarise
from workers.eval.report import compare, table


def record(name: str, resolved: bool, pr: Fate, dollars: float, wall: float) -> InstanceRecord:
    return InstanceRecord(
        instance_id=name, repo="o/r", resolved=resolved, pr=pr, dollars=dollars,
        wall_seconds=wall, model_seconds=wall / 2, agent_calls=7, input_tokens=1000,
        cache_read_tokens=5000, cache_write_tokens=200, output_tokens=300, path="SIMPLE",
        iterations={"PLAN": 1, "IMPLEMENT": 2, "DOCS": 1}, final_phase="COMPLETE",
        models=["claude-x"],
    )  # fmt: skip


def results(records: list[InstanceRecord]) -> Results:
    return Results(
        suite="s.jsonl", started="2025-01-01T00:00:00+00:00", elapsed_seconds=100.0,
        workers=2, models=["claude-x"], records=records, summary=summarise(records),
    )  # fmt: skip


A = [
    record("one", True, "ready", 1.0, 100.0),
    record("two", False, "ready", 2.0, 200.0),
    record("three", True, "nomerge", 3.0, 300.0),
    record("four", False, "blocked", 0.5, 50.0),
]


def test_the_summary() -> None:
    s = summarise(A)
    assert (s.instances, s.resolved, s.resolved_rate) == (4, 2, 0.5)
    assert s.fates == {"ready": 2, "nomerge": 1, "blocked": 1, "nothing_to_do": 0, "error": 0}
    assert (s.ready, s.resolved_among_ready, s.ready_resolved_rate) == (2, 1, 0.5)
    assert (s.dollars, s.dollars_per_resolved) == (6.5, 3.25)
    assert (s.wall_seconds, s.wall_seconds_per_resolved) == (650.0, 325.0)
    assert s.tokens == 4 * 6500


def test_nothing_resolved_has_no_per_resolved_figures() -> None:
    s = summarise([record("x", False, "blocked", 1.0, 10.0)])
    assert s.dollars_per_resolved is None and s.ready_resolved_rate is None


def test_the_table() -> None:
    text = table(results(A))
    lines = text.splitlines()
    assert lines[0] == "Suite s.jsonl, started 2025-01-01T00:00:00+00:00; models: claude-x"
    assert lines[2].split() == [
        "instance", "resolved", "PR", "path", "P/I/D", "calls", "tokens", "in/cached/out",
        "$", "wall", "s", "model", "s",
    ]  # fmt: skip
    assert lines[5].split() == [
        "two", "no", "ready", "SIMPLE", "1/2/1", "7", "1,200/5,000/300", "2.00", "200", "100",
    ]  # fmt: skip
    assert "Resolved: 2 of 4 (50.0%)" in text
    assert "PRs: 2 ready, 1 NOMERGE, 1 blocked, 0 nothing to do, 0 error" in text
    assert 'Resolved among ready: 1 of 2 (50.0%): how far a "ready" can be trusted' in text
    assert "Cost: $6.50 in all, $3.25 per resolved instance; 26,000 tokens" in text
    assert "Time: 650 s of instance runs (325 s inside agent runs), 325 s per resolved" in text


def test_compare_side_by_side(tmp_path: Path) -> None:
    b = [*A[:3], record("four", True, "ready", 0.5, 50.0), record("five", True, "ready", 1, 10)]
    text = compare(results(A), results(b))
    rows = {line.split()[0]: line for line in text.splitlines() if line}
    assert "not resolved, blocked, $0.50" in rows["four"] and "resolved, ready" in rows["four"]
    assert "(absent)" in rows["five"]
    rate = next(line for line in text.splitlines() if line.startswith("resolved rate"))
    assert rate.split()[2:] == ["50.0%", "80.0%", "+30.0", "pt"]
    dollars = [line.split() for line in text.splitlines() if line.startswith("dollars")]
    assert dollars == [
        ["dollars", "$6.50", "$7.50", "+$1.00"],
        ["dollars", "per", "resolved", "$3.25", "$1.88", "-$1.38"],
    ]

    one, two = tmp_path / "a.json", tmp_path / "b.json"
    one.write_text(results(A).model_dump_json())
    two.write_text(results(b).model_dump_json())
    out = io.StringIO()
    assert cli.main(["compare", str(one), str(two)], out) == 0
    assert out.getvalue().startswith("a.json: s.jsonl") and "b.json - a.json" in out.getvalue()
    assert cli.main(["compare", str(one), str(tmp_path / "missing.json")], out) == 2
