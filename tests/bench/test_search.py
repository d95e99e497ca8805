"""The sustained-rate search of `make bench`, against servers modelled by their capacity."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bench.search import STEPS, Result, Search, alternate, kept_up, sustained


def run_at(rate: int, p99_ms: float, **extra: object) -> Result:
    result: Result = {
        "offered_rate": rate,
        "achieved_rate": float(rate),
        "rejected": {},
        "errors": {},
        "latency_ms": {"p50": 1.0, "p99": p99_ms, "max": p99_ms},
        "lost": 0,
        "duplicates_enqueued": 0,
    }
    return result | extra


def server(capacity: float, calls: list[tuple[str, int]], name: str) -> Callable[[int], Result]:
    """Keeps up with any rate up to `capacity`; its p99 explodes past it."""

    def step(rate: int) -> Result:
        calls.append((name, rate))
        return run_at(rate, 5.0 if rate <= capacity else 300.0)

    return step


def test_kept_up_needs_p99_under_target_the_rate_achieved_and_no_failure() -> None:
    assert kept_up(run_at(1000, 19.9))
    assert not kept_up(run_at(1000, 20.0))
    assert not kept_up(run_at(1000, 5.0, achieved_rate=970.0))
    assert not kept_up(run_at(1000, 5.0, errors={"connection closed": 1}))
    assert not kept_up(run_at(1000, 5.0, rejected={"503 queue unavailable": 1}))


def test_sustained_also_needs_nothing_lost_or_stored_twice() -> None:
    assert sustained(run_at(1000, 5.0))
    assert not sustained(run_at(1000, 5.0, lost=1))
    assert not sustained(run_at(1000, 5.0, duplicates_enqueued=1))


@pytest.mark.parametrize("capacity", [900.0, 3_000.0, 4_700.0, 6_100.0, 7_900.0])
def test_finds_the_capacity_within_the_steps(capacity: float) -> None:
    calls: list[tuple[str, int]] = []
    search = Search(cap=8_000.0, kept=kept_up)
    alternate([(search, server(capacity, calls, "x"))])
    found = search.highest()
    assert found <= capacity
    assert found >= capacity / 1.25  # six steps from half the cap reach this close
    kept_steps = sum(1 for r in search.runs if kept_up(r))
    assert kept_steps + (len(search.runs) - kept_steps) // 2 <= STEPS


def test_a_failed_run_is_measured_again_and_a_kept_retry_counts() -> None:
    outcomes = iter([300.0, 5.0, 5.0, 300.0, 300.0, 5.0])
    rates: list[int] = []

    def flaky(rate: int) -> Result:
        rates.append(rate)
        return run_at(rate, next(outcomes))

    search = Search(cap=4_000.0, kept=kept_up)
    for _ in range(6):
        search.record(flaky(round(search.rate)))
    # 2000 failed then kept: up to 3000 (kept), 4000 failed twice: between them, 3500
    assert rates == [2000, 2000, 3000, 4000, 4000, 3500]
    assert search.highest() == 3500


def test_no_rate_kept_gives_zero() -> None:
    search = Search(cap=1_000.0, kept=kept_up)
    alternate([(search, lambda rate: run_at(rate, 500.0))])
    assert search.done
    assert search.highest() == 0.0
    assert len(search.runs) == 2 * STEPS  # every step measured twice


def test_alternate_takes_one_step_of_each_in_turn() -> None:
    calls: list[tuple[str, int]] = []
    bare = Search(cap=10_000.0, kept=kept_up)
    web = Search(cap=6_000.0, kept=sustained)
    alternate([(bare, server(7_000, calls, "bare")), (web, server(4_800, calls, "web"))])
    names = [name for name, _ in calls]
    both = min(names.count("bare"), names.count("web"))
    assert names[: 2 * both] == ["bare", "web"] * both
    assert 7_000 / 1.08 <= bare.highest() <= 7_000
    assert 4_800 / 1.25 <= web.highest() <= 4_800
