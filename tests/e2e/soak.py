"""The soak: many tasks whose model calls take up to a minute and a half, on few workers.

    run = soak(root, tasks=20, workers=4, seed=17)   # tests/e2e/test_soak.py, bench/soak.py
    run.figures.max_in_flight_per_task               # 1: the lease held every time

Real processes (tests/e2e/harness.py). Every task runs the same short SIMPLE scenario
(tests/e2e/scenarios/soak.yml, nine model calls, one iteration per phase). Latencies are
drawn from 1 to 90 s with a seeded generator, but few calls per task are long, so the soak
ends in about six minutes on two cores: one call of each task, chosen at random, takes
1 to 90 s (uniform), its other calls 1 to 3 s. About two thirds of the tasks thus have a call
longer than the task lease's 30-second TTL. The sweep runs every 10 s with a 10-second
threshold meanwhile. The fake model records every call; the checks: all tasks finish,
none twice (every call made once, one PR, one plan, one status comment and one feedback
comment per iteration each), at most one call of a task in flight at any moment, no job
failed.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tests.e2e.harness import REPO, Harness
from tests.e2e.latency import Latencies
from tests.e2e.multitask import TaskRouter
from tests.fakes.anthropic import Call
from workers.controller.phases import Phase
from workers.tasks.record import TaskStatus

SCENARIO = Path(__file__).parent / "scenarios" / "soak.yml"
CALLS = 9  # per task, as the scenario makes them
FIRST = 3000  # issue numbers
LONG_S, SHORT_S = (1.0, 90.0), (1.0, 3.0)
SWEEP = {"SWEEP_EVERY_S": "10", "SWEEP_STALE_AFTER_S": "10"}


@dataclass
class Figures:
    tasks: int
    workers: int
    seed: int
    finished: int
    calls: int
    long_calls: int  # longer than the lease's TTL
    longest_call_s: float
    max_in_flight_per_task: int
    max_in_flight: int  # all tasks together
    wall_s: float


@dataclass
class Soak:
    figures: Figures
    problems: list[str] = field(default_factory=list)  # empty when all is well


def latencies(numbers: list[int], seed: int) -> Latencies:
    rng = random.Random(seed)
    plan = Latencies()
    for number in numbers:
        seconds = {index: rng.uniform(*SHORT_S) for index in range(CALLS)}
        seconds[rng.randrange(CALLS)] = rng.uniform(*LONG_S)
        plan.plan(number, seconds)
    return plan


def soak(root: Path, *, tasks: int = 20, workers: int = 4, seed: int = 17) -> Soak:
    numbers = [FIRST + index for index in range(tasks)]
    router = TaskRouter()
    with Harness(root, workers=workers, settings=SWEEP) as bot:
        assert bot.llm is not None
        bot.llm.latency = latencies(numbers, seed)
        bot.llm.push(*[router] * (tasks * CALLS * 2))
        for number in numbers:
            router.add(number, SCENARIO)
            bot.open_issue(number, f"Soak {number}", "Parse inline comments in iniconfig.")
        started = time.monotonic()
        for number in numbers:
            assert bot.label(number).status_code == 202
        for number in numbers:
            left = max(30.0, 1500 - (time.monotonic() - started))
            bot.wait_for(number, lambda r: r.status is not TaskStatus.ACTIVE, left, "to end")
        wall = time.monotonic() - started
        problems = check(bot, router, numbers)
        figures = measure(bot, numbers, workers, seed, wall)
    return Soak(figures, problems)


def measure(bot: Harness, numbers: list[int], workers: int, seed: int, wall: float) -> Figures:
    assert bot.llm is not None
    calls = [c for c in bot.llm.calls if c.task in numbers]
    took = [c.ended - c.started for c in calls if c.ended is not None]
    finished = [n for n in numbers if (r := bot.record(n)) and r.status is TaskStatus.FINISHED]
    return Figures(
        tasks=len(numbers),
        workers=workers,
        seed=seed,
        finished=len(finished),
        calls=len(calls),
        long_calls=sum(seconds > 30 for seconds in took),
        longest_call_s=round(max(took, default=0.0), 1),
        max_in_flight_per_task=max((bot.llm.peak.get(n, 0) for n in numbers), default=0),
        max_in_flight=concurrency(calls),
        wall_s=round(wall, 1),
    )


def concurrency(calls: list[Call]) -> int:
    """The most calls in flight at one moment, all tasks together."""
    edges = sorted([(c.started, 1) for c in calls] + [(c.ended or c.started, -1) for c in calls])
    level = most = 0
    for _, step in edges:
        level += step
        most = max(most, level)
    return most


def check(bot: Harness, router: TaskRouter, numbers: list[int]) -> list[str]:
    """Every way the run could have gone wrong, described; empty when none did."""
    assert bot.github is not None and bot.llm is not None
    problems = [f"model: {error}" for error in router.mismatches()]
    problems += [f"failed job {job}" for job in bot.failed_jobs()]
    repo = bot.github.repo(REPO)
    heads = Counter(pull.head for pull in repo.pulls.values())
    problems += [f"{n} PRs for {head}" for head, n in heads.items() if n > 1]
    per_task = Counter(c.task for c in bot.llm.calls)
    for number in numbers:
        record = bot.record(number)
        if record is None or record.status is not TaskStatus.FINISHED:
            problems.append(f"#{number} did not finish: {record and record.status}")
            continue
        if record.workflow.phase is not Phase.COMPLETE or record.pr_number is None:
            problems.append(f"#{number} ended {record.workflow.phase} without a PR")
            continue
        if not router.models[number].done:
            problems.append(f"#{number}'s script was not played to the end")
        if per_task[number] != CALLS:
            problems.append(f"#{number} made {per_task[number]} model calls, not {CALLS}")
        if bot.llm.peak.get(number, 0) > 1:
            problems.append(f"#{number} had {bot.llm.peak[number]} calls in flight at once")
        on_issue = [c.body for c in repo.comments.values() if c.number == number]
        on_pr = [c.body for c in repo.comments.values() if c.number == record.pr_number]
        counts = {
            "status": sum("### agentium status" in body for body in on_issue),
            "plan": sum("### Plan" in body for body in on_issue),
            "IMPLEMENT": sum("### IMPLEMENT iteration" in body for body in on_pr),
            "DOCS": sum("### DOCS iteration" in body for body in on_pr),
        }
        if set(counts.values()) != {1}:
            problems.append(f"#{number} comments: {counts}")
    return problems


def report(run: Soak) -> str:
    f = run.figures
    lines = [
        f"soak: {f.tasks} tasks on {f.workers} workers (seed {f.seed}): {f.finished} finished "
        f"in {f.wall_s} s",
        f"  model calls {f.calls} ({f.long_calls} longer than the lease's 30 s TTL, the "
        f"longest {f.longest_call_s} s); max calls in flight per task "
        f"{f.max_in_flight_per_task}, all tasks together {f.max_in_flight}",
        f"  verdict: {'all finished, none twice' if not run.problems else 'FAILED'}",
    ]
    return "\n".join(lines + [f"  - {problem}" for problem in run.problems])
