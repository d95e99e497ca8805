"""The soak (tests/e2e/soak.py): 20 tasks on 4 workers, model latencies of 1 to 90 s.

Bounded: about six minutes of wall time (one long call per task, the others short; see
the soak's docstring); `make bench` prints the same run's figures (bench/soak.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.soak import CALLS, report, soak

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


def test_twenty_tasks_with_minute_long_calls_on_four_workers(tmp_path: Path) -> None:
    run = soak(tmp_path, tasks=20, workers=4, seed=17)
    figures = run.figures
    assert run.problems == [], report(run)
    assert figures.finished == 20 and figures.calls == 20 * CALLS, report(run)
    assert figures.max_in_flight_per_task == 1, report(run)
    assert figures.long_calls >= 5, report(run)  # the seed gives calls past the lease's TTL
    assert figures.max_in_flight >= 3, report(run)  # the workers did run calls side by side
