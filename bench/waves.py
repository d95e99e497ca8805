"""`make bench`: a plan's waves in parallel, with the real processes and a slow fake model.

    python -m bench.waves [--delay 10] [--workers 4] [--json]

The phased-execution seed's plan (nine subtasks in five TDD waves, tests/scenarios/
waves-tdd-seed.yml) runs end to end on `--workers` workers against the fake GitHub and a
fake model that answers every subtask after `--delay` seconds (D) without holding up other
requests. Measured from the first subtask's model call to the last subtask's answer:

- the wall time of the walk, which waves in parallel bring close to waves x D (every wave's
  subtasks in flight at once; the joins, pushes, wave reviews and judges in between); its
  ratio to subtasks x D, what running them one by one would take: target <= 0.65;
- the cached share of every subtask prompt after the first (cache reads over the prompt,
  as the fake server computes them from the cache breakpoints): target >= 70%, since every
  subtask of the task starts with the same system prompt, tools and stable block.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from tests.e2e.harness import Harness
from tests.e2e.subtask_model import subtask_of
from workers.tasks.record import TaskStatus

SCENARIO = Path(__file__).parent.parent / "tests" / "scenarios" / "waves-tdd-seed.yml"
ISSUE = 12
RATIO_TARGET = 0.65
CACHE_TARGET = 0.70


@dataclass
class Figures:
    delay_s: float
    workers: int
    waves: int
    subtasks: int
    finished: bool
    wall_s: float
    ratio_to_waves: float
    ratio_to_subtasks: float
    ratio_met: bool
    waves_in_parallel: int
    gap_between_waves_s: float
    cached_share_min: float
    cached_share_mean: float
    cache_met: bool
    model_errors: int


def cached_shares(bot: Harness) -> list[float]:
    """Cache reads over the whole prompt, for each subtask request after the first."""
    assert bot.llm is not None
    shares = []
    for request, usage in zip(bot.llm.requests, bot.llm.usages, strict=True):
        if usage is None or subtask_of(request) is None:
            continue
        read, written = usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"]
        total = usage["input_tokens"] + read + written
        shares.append(read / total if total else 0.0)
    return shares[1:]


def run(delay: float, workers: int) -> Figures:
    with (
        tempfile.TemporaryDirectory(prefix="agentium-bench-waves-") as work,
        Harness(Path(work), workers=workers) as bot,
    ):
        model = bot.script(SCENARIO, subtask_delay_s=delay)
        bot.open_issue(ISSUE, "Users and posts", "Add users and posts, test first.")
        assert bot.label(ISSUE).status_code == 202
        record = bot.wait_finished(ISSUE, timeout=600)
        shares = cached_shares(bot)
    flights = model.subtasks.flights
    walk = record.workflow.walk
    waves = [w.number for w in walk.waves]
    wall = max(f.answered for f in flights) - min(f.arrived for f in flights)
    ends = {n: max(f.answered for f in flights if f.wave == n) for n in waves}
    starts = {n: min(f.arrived for f in flights if f.wave == n) for n in waves}
    gaps = [starts[n + 1] - ends[n] for n in waves[:-1]]
    parallel = sum(model.subtasks.overlapping(n) for n in waves)
    subtasks = sum(len(w.subtasks) for w in walk.waves)
    return Figures(
        delay_s=delay,
        workers=workers,
        waves=len(waves),
        subtasks=subtasks,
        finished=record.status is TaskStatus.FINISHED and record.workflow.phase.value == "COMPLETE",
        wall_s=round(wall, 2),
        ratio_to_waves=round(wall / (len(waves) * delay), 3),
        ratio_to_subtasks=round(wall / (subtasks * delay), 3),
        ratio_met=wall <= RATIO_TARGET * subtasks * delay,
        waves_in_parallel=parallel,
        gap_between_waves_s=round(sum(gaps) / len(gaps), 2) if gaps else 0.0,
        cached_share_min=round(min(shares), 3) if shares else 0.0,
        cached_share_mean=round(sum(shares) / len(shares), 3) if shares else 0.0,
        cache_met=bool(shares) and min(shares) >= CACHE_TARGET,
        model_errors=len(model.errors),
    )


def report(f: Figures) -> None:
    print(
        f"waves: {f.waves} holding {f.subtasks} subtasks; D = {f.delay_s:g} s; {f.workers} workers"
    )
    print(f"task finished (COMPLETE): {f.finished}; model script errors: {f.model_errors}")
    print(
        f"walk wall time (first subtask call to last subtask answer): {f.wall_s:.1f} s = "
        f"{f.ratio_to_waves:.2f} x waves x D"
    )
    verdict = "met" if f.ratio_met else "MISSED"
    print(
        f"ratio to subtasks x D ({f.subtasks * f.delay_s:g} s, one by one): "
        f"{f.ratio_to_subtasks:.3f} (target <= {RATIO_TARGET}: {verdict})"
    )
    print(
        f"waves whose subtasks were all in flight at once: {f.waves_in_parallel} of {f.waves} "
        f"(the one-subtask wave counts as not); mean gap between waves (join, push, wave review "
        f"and judge): {f.gap_between_waves_s:.2f} s"
    )
    print(
        f"cached share of subtask prompts after the first: min {f.cached_share_min:.1%}, "
        f"mean {f.cached_share_mean:.1%} (target >= {CACHE_TARGET:.0%}: "
        f"{'met' if f.cache_met else 'MISSED'})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.waves")
    parser.add_argument("--delay", type=float, default=10.0, help="seconds per subtask answer (D)")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = run(args.delay, args.workers)
    if args.json:
        print(json.dumps(asdict(figures), indent=2))
    else:
        report(figures)
    ok = figures.finished and figures.ratio_met and figures.cache_met and not figures.model_errors
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
