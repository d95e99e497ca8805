"""What a task leaves behind and what the bot itself costs per agent call.

    python -m bench.footprint [--tasks 20] [--workers 2] [--json]

The real processes against the fake GitHub and a scripted model (instant answers, so all
the time measured is the bot's own):

1. A 30-iteration task (COMPLEX: PLAN 5, IMPLEMENT 20, DOCS 5; every judge ITERATEs to
   the last iteration, the recovery ladder's doctor is asked twice per phase, every
   worker commits): Redis bytes of the keys named after the
   task once it finished (its record, state files, marks, ...) and the largest its record
   grew while it ran; the bot's CPU time per agent call (the worker processes and
   everything they started: work-horses, git; the repository's test command is `true`),
   which is prompt building, state saves and syncs, git and GitHub effects.
2. `--tasks` short tasks on `--workers` workers: the data directory's disk use (checkouts
   and state copies; environments apart) once they finished, and again after the workers'
   sweep of old checkouts (CHECKOUT_TTL_S=60); and the machine's copy of the repository
   with its spare checkout (``DATA_DIR/git-cache``), swept too (GIT_CACHE_TTL_S=60).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import redis

from bench.tasks import LOAD_BASE, SHORT_SIMPLE
from tests.e2e.environments import OFFLINE_SETTINGS
from tests.e2e.harness import REPO, Harness
from tests.e2e.multitask import TaskRouter
from workers.tasks.record import task_key

LIMITS = {"PLAN": 5, "IMPLEMENT": 20, "DOCS": 5}
LONG_ISSUE = 30
TTL_S = 60
SETTINGS = (
    OFFLINE_SETTINGS
    + "test_command: 'true'\nlimits:\n  COMPLEX:\n"
    + "".join(f"    {phase}: {count}\n" for phase, count in LIMITS.items())
)
TICKS = os.sysconf("SC_CLK_TCK")
# The failed iterations of a phase after which the doctor is asked (config/workflow.yml:
# limits.recovery.doctor, min_attempts 2 and per_phase 2; the judges' reasons differ, so
# the phase is never stuck on one failure).
DOCTOR_AFTER = (2, 3)


@dataclass
class Figures:
    iterations: int
    agent_calls: int
    redis_task_bytes: int
    redis_record_max_bytes: int
    cpu_ms_per_call: float
    tasks: int
    workers: int
    disk_after_tasks_kb: int
    disk_after_sweep_kb: int
    git_cache_kb: int
    git_cache_after_sweep_kb: int


def long_scenario() -> str:
    steps = [
        '  - worker: "### Task 1: keep inline comments"',
        '  - assessor: "AGENTIUM_EVAL: COMPLEX"',
    ]
    for phase, count in LIMITS.items():
        for iteration in range(1, count + 1):
            if iteration > 1 or phase != "PLAN":
                steps.append(f"  - worker: {phase} iteration {iteration} done")
            steps.append(f"  - reviewer: {phase} {iteration} - point {iteration} is still open")
            verdict = "ADVANCE" if iteration == count else f"ITERATE fix point {iteration}"
            steps.append(f'  - judge: "AGENTIUM_EVAL: {verdict}"')
            if iteration in DOCTOR_AFTER and iteration < count:  # the recovery ladder asks
                hint = f"retry_with_fix close point {iteration}"
                steps.append(f'  - doctor: "AGENTIUM_DOCTOR: {hint}"')
    return 'task: "footprint"\nsteps:\n' + "\n".join(steps) + "\n"


def cpu_seconds(pid: int) -> float:
    """User and system time of ``pid`` and of its children it has waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return sum(int(value) for value in fields[11:15]) / TICKS  # utime stime cutime cstime


def workers_cpu(bot: Harness) -> float:
    return sum(cpu_seconds(p.pid) for n, p in bot.processes.items() if n.startswith("worker"))


def task_bytes(bot: Harness, issue: int) -> int:
    assert bot.redis_server is not None
    client = redis.Redis.from_url(bot.redis_server.url)
    name = task_key(REPO, issue).encode()
    found = [k for k in client.scan_iter(count=1000) if name in k]
    return sum(int(client.memory_usage(k) or 0) for k in found)


def record_bytes(bot: Harness, issue: int) -> int:
    record = bot.record(issue)
    return len(record.model_dump_json()) if record else 0


def disk_kb(root: Path, folders: tuple[str, ...] = ("workspaces", "tasks")) -> int:
    total = 0
    for folder in folders:
        for path in (root / folder).rglob("*"):
            if path.is_file() and not path.is_symlink():
                total += path.stat().st_size
    return total // 1024


def long_task(root: Path) -> tuple[int, int, int, float]:
    scenario = root / "long.yml"
    scenario.write_text(long_scenario())
    files = {".github/agentium.yml": SETTINGS}
    with Harness(root / "long", workers=1, extra_files=files) as bot:
        model = bot.script(scenario)
        bot.open_issue(LONG_ISSUE, "Keep inline comments", "Parse inline comments in iniconfig.")
        before = workers_cpu(bot)
        assert bot.label(LONG_ISSUE).status_code == 202
        largest = 0
        deadline = time.monotonic() + 900
        while (record := bot.record(LONG_ISSUE)) is None or record.status == "active":
            largest = max(largest, record_bytes(bot, LONG_ISSUE))
            if time.monotonic() > deadline:
                raise TimeoutError("the 30-iteration task did not finish in 15 minutes")
            time.sleep(0.5)
        time.sleep(1)  # the work-horse is reaped; its CPU joins the worker's
        spent = workers_cpu(bot) - before
        calls = model.calls
        assert not model.errors and model.done, model.errors
        return calls, task_bytes(bot, LONG_ISSUE), largest, spent


def many_tasks(root: Path, count: int, workers: int) -> tuple[int, int, int, int]:
    scenario = root / "short.yml"
    scenario.write_text(SHORT_SIMPLE)
    router = TaskRouter()
    settings = {"CHECKOUT_TTL_S": str(TTL_S), "CHECKOUT_SWEEP_EVERY_S": "10"}
    settings["GIT_CACHE_TTL_S"] = str(TTL_S)
    with Harness(root / "many", workers=workers, settings=settings) as bot:
        assert bot.llm is not None
        bot.llm.push(*[router] * (count * 20))
        numbers = [LOAD_BASE + index for index in range(count)]
        for number in numbers:
            router.add(number, scenario)
            bot.open_issue(number, f"Load {number}", "Parse inline comments in iniconfig.")
            assert bot.label(number).status_code == 202
        for number in numbers:
            bot.wait_finished(number, timeout=600)
        data = root / "many" / "data"
        after_tasks, cache = disk_kb(data), disk_kb(data, ("git-cache",))
        time.sleep(TTL_S + 25)  # unused for the TTL, then a sweep
        return after_tasks, disk_kb(data), cache, disk_kb(data, ("git-cache",))


def measure(root: Path, tasks: int, workers: int) -> Figures:
    calls, redis_bytes, largest, cpu = long_task(root)
    after_tasks, after_sweep, cache, cache_after_sweep = many_tasks(root, tasks, workers)
    return Figures(
        sum(LIMITS.values()), calls, redis_bytes, largest, round(cpu / calls * 1000, 1),
        tasks, workers, after_tasks, after_sweep, cache, cache_after_sweep,
    )  # fmt: skip


def report(f: Figures) -> str:
    return "\n".join(
        [
            f"a {f.iterations}-iteration task ({f.agent_calls} agent calls): "
            f"{f.redis_task_bytes:,} B in Redis once finished (its record at most "
            f"{f.redis_record_max_bytes:,} B while it ran)",
            f"bot CPU per agent call (prompts, state, git, GitHub effects; no model, no "
            f"tests): {f.cpu_ms_per_call} ms",
            f"{f.tasks} tasks on {f.workers} workers: checkouts and state copies "
            f"{f.disk_after_tasks_kb:,} KB when they finished, {f.disk_after_sweep_kb:,} KB "
            f"after the workers' sweep; the machine's copy of the repository and its spare "
            f"checkout {f.git_cache_kb:,} KB, {f.git_cache_after_sweep_kb:,} KB after it",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.footprint", description=__doc__)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-footprint-") as tmp:
        figures = measure(Path(tmp), options.tasks, options.workers)
    print(json.dumps(asdict(figures)) if options.json else report(figures), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
