"""Tasks under load, with the real processes against fake GitHub and Anthropic servers.

    python -m bench.tasks [--latency-runs 30] [--tasks 50] [--workers 4] [--json]

1. Webhook to first agent call, idle workers: one labelled-issue delivery at a time; the
   time from sending it to the fake Anthropic receiving the task's first request. Each
   task says NOTHING_TO_DO at once and is finished, and the workers idle for ``IDLE_S``,
   before the next delivery. The first
   (cold: the workers clone the repository and build their clients' caches) is reported
   apart from the percentiles.
2. Many tasks at once: `--tasks` issues labelled together on `--workers` workers, each a
   short SIMPLE scenario (8 agent calls). All must finish, none twice: one PR per branch,
   one feedback comment per iteration, one status comment per issue.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tests.e2e.harness import REPO, Harness
from tests.e2e.multitask import TaskRouter
from workers.tasks.record import TaskStatus, task_key

SCENARIOS = Path(__file__).parent.parent / "tests" / "scenarios"
SHORT_SIMPLE = """\
task: "short simple"
steps:
  - worker: "### Task 1: keep inline comments"
  - assessor: "AGENTIUM_EVAL: SIMPLE"
  - worker: Implemented inline comments.
  - reviewer: Correct.
  - judge: "AGENTIUM_EVAL: ADVANCE"
  - worker: Documented inline comments.
  - reviewer: Clear.
  - judge: "AGENTIUM_EVAL: ADVANCE"
"""
ITERATIONS = {"IMPLEMENT": 1, "DOCS": 1}  # what SHORT_SIMPLE makes
LATENCY_BASE, LOAD_BASE = 1000, 2000  # issue numbers
# Between deliveries the workers are left idle this long: after a task ends each worker
# forks its next work-horse and copies its memory (workers/processes/warmhorse.py, about
# 0.1 s of CPU); a delivery sent at once would measure that, not idle workers.
IDLE_S = 0.5


@dataclass
class Figures:
    latency_runs: int
    latency_cold_ms: float
    latency_p50_ms: float
    latency_p99_ms: float
    latency_max_ms: float
    latency_breakdown_ms: dict[str, float]  # medians per stage, warm runs
    tasks: int
    workers: int
    finished: int
    wall_s: float
    tasks_per_min: float
    duplicate_prs: int
    wrong_feedback_counts: int
    wrong_status_counts: int
    model_errors: int


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))
    return ordered[index]


def first_call_latencies(
    bot: Harness, router: TaskRouter, runs: int
) -> tuple[list[float], list[dict[str, float]]]:
    """Seconds from each delivery's send to its task's first model request, and where
    the time went (milliseconds per stage, from the step's "step timings" log line)."""
    latencies, breakdowns = [], []
    for index in range(runs):
        number = LATENCY_BASE + index
        router.add(number, SCENARIOS / "nothing-to-do.yml")
        bot.open_issue(number, f"Latency {index}", "Nothing to do here.")
        answered = bot.label(number)
        assert answered.status_code == 202
        sent = time.time() - answered.elapsed.total_seconds()  # when it went on the wire
        bot.wait_finished(number, timeout=60)
        time.sleep(IDLE_S)
        latencies.append(router.first_request[number] - sent)
        timings = step_timings(bot, task_key(REPO, number))
        breakdowns.append(breakdown(timings, sent, answered.elapsed.total_seconds(),
                                    router.first_request[number]))  # fmt: skip
    return latencies, breakdowns


def step_timings(bot: Harness, key: str) -> dict[str, Any]:
    """The "step timings" line of the task's first step, from the workers' logs."""
    for log in sorted(bot.root.glob("worker*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if '"step timings"' in line and key in line:
                entry: dict[str, Any] = json.loads(line)
                if entry.get("task") == key:
                    return entry
    raise LookupError(f"no step timings logged for {key}")


def breakdown(
    timings: dict[str, Any], sent: float, answer_s: float, first: float
) -> dict[str, float]:
    """Milliseconds per stage from the send to the model's first request."""
    figures = {k.removesuffix("_ms"): float(v) for k, v in timings.items() if k.endswith("_ms")}
    laps = {k: v for k, v in figures.items() if not k.startswith("beside_")}
    beside = {k.removeprefix("beside_"): v for k, v in figures.items() if k.startswith("beside_")}
    queued = laps.pop("queued", 0.0)
    at = float(timings["at"])
    stepping = sum(laps.values())
    job_started = at - stepping / 1000
    return {
        "receiver answer": answer_s * 1000,
        "to the step job (dispatcher, deliveries job)": (job_started - sent) * 1000
        - queued
        - answer_s * 1000,
        "step job queued": queued,
        **{f"step: {name}": ms for name, ms in laps.items()},
        "prompt build and request": (first - at) * 1000,
        **{f"beside the step (not in the sum): {name}": ms for name, ms in beside.items()},
    }


def many_tasks(bot: Harness, router: TaskRouter, count: int, scenario: Path) -> float:
    """Label `count` issues together; seconds until every task finished."""
    numbers = [LOAD_BASE + index for index in range(count)]
    for number in numbers:
        router.add(number, scenario)
        bot.open_issue(number, f"Load {number}", "Parse inline comments in iniconfig.")
    started = time.monotonic()
    for number in numbers:
        assert bot.label(number).status_code == 202
    for number in numbers:
        remaining = max(30.0, 600 - (time.monotonic() - started))
        bot.wait_finished(number, timeout=remaining)
    return time.monotonic() - started


def exactly_once(bot: Harness, numbers: list[int]) -> tuple[int, int, int]:
    """(duplicate PRs, PRs with a wrong number of feedback comments, issues with a wrong
    number of status comments)."""
    assert bot.github is not None
    repo = bot.github.repo(REPO)
    heads = Counter(pull.head for pull in repo.pulls.values())
    duplicates = sum(n - 1 for n in heads.values())
    wrong_feedback = wrong_status = 0
    for number in numbers:
        record = bot.record(number)
        bodies = [c.body for c in repo.comments.values() if c.number == number]
        wrong_status += sum("### agentium status" in body for body in bodies) != 1
        pr = record.pr_number if record else None
        on_pr = [c.body for c in repo.comments.values() if c.number == pr]
        counts = {phase: sum(f"### {phase} iteration" in b for b in on_pr) for phase in ITERATIONS}
        wrong_feedback += counts != ITERATIONS
    return duplicates, wrong_feedback, wrong_status


def measure(root: Path, runs: int, tasks: int, workers: int) -> Figures:
    scenario = root / "short-simple.yml"
    scenario.write_text(SHORT_SIMPLE)
    router = TaskRouter()
    with Harness(root / "bot", workers=workers) as bot:
        assert bot.llm is not None
        bot.llm.push(*[router] * (runs * 2 + 2 + tasks * 20))
        seconds, stages = first_call_latencies(bot, router, runs + 1)
        cold, *latencies = [s * 1000 for s in seconds]
        wall = many_tasks(bot, router, tasks, scenario)
        numbers = [LOAD_BASE + index for index in range(tasks)]
        finished = sum(
            (r := bot.record(n)) is not None and r.status is TaskStatus.FINISHED for n in numbers
        )
        duplicates, feedback, status = exactly_once(bot, numbers)
    return Figures(
        runs, round(cold, 1), round(statistics.median(latencies), 1),
        round(_percentile(latencies, 0.99), 1), round(max(latencies), 1), medians(stages[1:]),
        tasks, workers, finished, round(wall, 1),
        round(tasks / wall * 60, 1), duplicates, feedback, status, len(router.mismatches()),
    )  # fmt: skip


def medians(stages: list[dict[str, float]]) -> dict[str, float]:
    names = list(dict.fromkeys(name for stage in stages for name in stage))
    return {n: round(statistics.median(s.get(n, 0.0) for s in stages), 1) for n in names}


def report(figures: Figures) -> str:
    f = figures
    ok = f.finished == f.tasks and not (
        f.duplicate_prs or f.wrong_feedback_counts or f.wrong_status_counts or f.model_errors
    )
    return "\n".join(
        [
            f"webhook -> first agent call, idle workers ({f.latency_runs} runs after a cold "
            f"one of {f.latency_cold_ms} ms): p50 {f.latency_p50_ms} ms, "
            f"p99 {f.latency_p99_ms} ms, max {f.latency_max_ms} ms; medians by stage:",
            *(f"  {name}: {ms} ms" for name, ms in f.latency_breakdown_ms.items()),
            f"{f.tasks} tasks at once on {f.workers} workers: {f.finished} finished in "
            f"{f.wall_s} s ({f.tasks_per_min} tasks/min); duplicate PRs {f.duplicate_prs}, "
            f"wrong feedback counts {f.wrong_feedback_counts}, wrong status comment counts "
            f"{f.wrong_status_counts}, script mismatches {f.model_errors}",
            f"verdict: {'all finished, none twice' if ok else 'FAILED'}",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.tasks", description=__doc__)
    parser.add_argument("--latency-runs", type=int, default=30)
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-tasks-") as tmp:
        figures = measure(Path(tmp), options.latency_runs, options.tasks, options.workers)
    print(json.dumps(asdict(figures)) if options.json else report(figures), flush=True)
    return 0 if "FAILED" not in report(figures) else 1


if __name__ == "__main__":
    raise SystemExit(main())
