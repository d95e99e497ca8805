"""`make bench`: how much context the agents send, and what the prompt cache would read.

A scripted COMPLEX task (PLAN 1 iteration, IMPLEMENT 4 iterations, the first walking the
plan's 3 tasks in 3 waves of one subtask each, every wave reviewed and judged, DOCS 1) runs
through the real controller (`step`), the real AgentRunner, prompt building, tool loop and
sandbox, on a real checkout of iniconfig, against the fake Anthropic server, which records
every request (``bench/context_task.py``). The requests are then fed to a model of the
prompt cache (``bench/cachemodel.py``: the breakpoints actually sent, their lifetimes, the
20-block lookback, the minimum cacheable length) on a simulated timeline: each agent run
lasts what such a run takes for real (``RUN_SECONDS``: a worker run 10 minutes, a review 2
and a half, a judgment 20 s), its calls spread over it. Per role: the share of the input
the cache would read, with the lifetimes sent and with 5 minutes everywhere, and the input's
cost in units of the plain input price. Then a 60-step run (``bench/context_long.py``).

Targets:
- every role with more than one call reads >= 50% of its input from the cache (but the
  recovery ladder's doctor and replanner, rare and below the cacheable minimum);
- the largest request of IMPLEMENT iteration 4 is <= 1.5 x the largest of iteration 1;
- the 60-step run stays under its window (pruned), and in a small window it is compacted
  and stays flat after that.

    python -m bench.context [--json]
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.cachemodel import CacheModel, CacheUse
from bench.context_long import LongRun, configurations, long_run
from bench.context_long import report as report_long
from bench.context_long import verdicts as long_verdicts
from bench.context_task import Runs, checkout_repo, local_git, make_runner, run_task, task_context
from tests.fakes.anthropic import FakeAnthropic, Recorded
from workers.agents.roles import spec_for
from workers.controller.effects import RunAgent
from workers.controller.phases import Phase
from workers.controller.state import WorkflowState
from workers.defaults import load_default_agent_settings

READ_TARGET = 0.50
GROWTH_TARGET = 1.5
# The recovery ladder's calls (docs/design.md §9) are rare, minutes apart and small (their
# one message is below the cacheable minimum); the read target is not theirs.
LADDER_AGENTS = frozenset({"doctor", "replanner"})
RUN_SECONDS = {
    "plan_worker": 300.0,
    "implement_worker": 600.0,
    "docs_worker": 300.0,
    "plan_reviewer": 90.0,
    "code_reviewer": 150.0,
    "judge": 20.0,
    "assessor": 10.0,
    "doctor": 15.0,
    "replanner": 60.0,
}


@dataclass(frozen=True)
class Call:
    agent: str
    phase: str
    iteration: int
    minute: float
    use: CacheUse  # with the lifetimes sent
    short: CacheUse  # with 5-minute lifetimes everywhere


def timeline(fake: FakeAnthropic, runs: Runs) -> Iterator[tuple[RunAgent, str, float, Recorded]]:
    """Each request with its agent and its simulated time (seconds since the task began);
    a wave's subtasks one after another, as local mode runs them."""
    clock = 0.0
    for effect, first, last in runs:
        kind = spec_for(effect).kind.value
        agent = kind + (" (subtask)" if effect.subtask else "")
        duration = RUN_SECONDS[kind]
        count = max(1, last - first)
        for n, recorded in enumerate(fake.requests[first:last]):
            yield effect, agent, clock + n * duration / count, recorded
        clock += duration


def measure(fake: FakeAnthropic, runs: Runs) -> list[Call]:
    sent, short = CacheModel(), CacheModel(ttl="5m")
    calls = []
    for effect, agent, at, recorded in timeline(fake, runs):
        phase, iteration = effect.phase.value, effect.iteration
        use, five = sent.request(recorded.json, at), short.request(recorded.json, at)
        calls.append(Call(agent, phase, iteration, at / 60, use, five))
    return calls


def roles(calls: list[Call]) -> dict[str, dict[str, float]]:
    found: dict[str, dict[str, float]] = {}
    for agent in dict.fromkeys(c.agent for c in calls):
        mine = [c for c in calls if c.agent == agent]
        prompt = sum(c.use.prompt for c in mine)
        found[agent] = {
            "calls": len(mine),
            "input_tokens": prompt,
            "read_share": sum(c.use.read for c in mine) / prompt,
            "read_share_5m": sum(c.short.read for c in mine) / prompt,
            "cost_units": sum(c.use.cost_units() for c in mine),
            "cost_units_5m": sum(c.short.cost_units() for c in mine),
        }
    return found


def verdicts(calls: list[Call], per_role: dict[str, dict[str, float]]) -> dict[str, object]:
    several = {a: r for a, r in per_role.items() if r["calls"] > 1 and a not in LADDER_AGENTS}
    worst = min(several, key=lambda a: several[a]["read_share"])
    implement = Phase.IMPLEMENT.value
    first = max(c.use.prompt for c in calls if c.phase == implement and c.iteration == 1)
    fourth = max(c.use.prompt for c in calls if c.phase == implement and c.iteration == 4)
    return {
        "lowest_read_share": {worst: round(several[worst]["read_share"], 3)},
        "read_target_met": several[worst]["read_share"] >= READ_TARGET,
        "implement_1_largest": first,
        "implement_4_largest": fourth,
        "growth": round(fourth / first, 3),
        "growth_target_met": fourth <= GROWTH_TARGET * first,
        "input_tokens": sum(c.use.prompt for c in calls),
        "call_count": len(calls),
    }


def report(
    calls: list[Call], per_role: dict[str, dict[str, float]], summary: dict[str, object]
) -> None:
    head = ("#", "agent", "phase", "it", "min", "tokens", "read", "read%")
    print("{:>3} {:<27} {:<9} {:>2} {:>6} {:>7} {:>7} {:>6}".format(*head))
    for n, c in enumerate(calls, 1):
        share = c.use.read / c.use.prompt if c.use.prompt else 0.0
        print(
            f"{n:>3} {c.agent:<27} {c.phase:<9} {c.iteration:>2} {c.minute:6.1f} "
            f"{c.use.prompt:>7,} {c.use.read:>7,} {share:6.1%}"
        )
    head = ("role", "calls", "input", "read (sent TTLs)", "read (5m only)", "cost units", "(5m)")
    print("\n{:<27} {:>5} {:>8} {:>17} {:>15} {:>11} {:>10}".format(*head))
    for agent, r in per_role.items():
        print(
            f"{agent:<27} {r['calls']:>5.0f} {r['input_tokens']:>8,.0f} {r['read_share']:>17.1%} "
            f"{r['read_share_5m']:>15.1%} {r['cost_units']:>11,.0f} {r['cost_units_5m']:>10,.0f}"
        )
    [(worst, share)] = summary["lowest_read_share"].items()  # type: ignore[union-attr]
    met = "met" if summary["read_target_met"] else "MISSED"
    print(
        f"\nlowest read share of a role with several calls: {worst} {share:.1%} "
        f"(target >= {READ_TARGET:.0%}: {met})"
    )
    print(
        f"largest request, IMPLEMENT 1: {summary['implement_1_largest']:,} tokens, IMPLEMENT 4: "
        f"{summary['implement_4_largest']:,}, x{summary['growth']} (target <= x{GROWTH_TARGET}: "
        f"{'met' if summary['growth_target_met'] else 'MISSED'})"
    )


def run_long(work: Path, fake: FakeAnthropic) -> list[LongRun]:
    shipped = load_default_agent_settings()
    found = []
    for name, window in configurations(shipped):
        folder = work / f"long-{name}"
        folder.mkdir()
        checkout, base = checkout_repo(folder)
        limits = {
            role: limit.model_copy(update={"max_tokens": 50_000_000})
            for role, limit in shipped.run_limits.items()
        }
        settings = shipped.model_copy(update={"window": window, "run_limits": limits})
        runner = make_runner(fake, settings)
        task = task_context(folder, checkout, base, WorkflowState())
        found.append(long_run(name, runner, window, fake, task, local_git(folder, checkout)))
    return found


def main(argv: list[str] | None = None) -> int:
    as_json = "--json" in (sys.argv[1:] if argv is None else argv)
    with tempfile.TemporaryDirectory(prefix="agentium-bench-") as work, FakeAnthropic() as fake:
        calls = measure(fake, run_task(Path(work), fake))
        long_runs = run_long(Path(work), fake)
    per_role = roles(calls)
    summary = verdicts(calls, per_role)
    long_summary = long_verdicts(long_runs)
    if as_json:
        shown = {"calls": [asdict(c) for c in calls], "roles": per_role, **summary}
        print(
            json.dumps({**shown, "long": [asdict(r) for r in long_runs], **long_summary}, indent=2)
        )
    else:
        report(calls, per_role, summary)
        report_long(long_runs)
    targets = [summary["read_target_met"], summary["growth_target_met"]]
    targets += [
        long_summary[k]
        for k in ("shipped_within_window", "small_compacted", "small_flat_after_compaction")
    ]
    return 0 if all(targets) else 1


if __name__ == "__main__":
    sys.exit(main())
