"""`make bench`: the webhook receiver's throughput and latency over real HTTP, with Redis.

In one run, on one machine: a bare Starlette app (the stack's ceiling) and the receiver
(`agentium web --no-dispatch` with its `agentium dispatch` process, as `agentium run`
starts them), both served by uvicorn with the same settings (the receiver with the bot's
HTTP protocol, bot/hookserver.py) and pinned to the same CPU, take signed ~19 KB `issues`
`labeled` deliveries from a load generator on the other CPU (`bench.loadgen`, with Redis
and the dispatcher):

1. closed loop, 16 keep-alive connections, alternating bare / receiver rounds: rates;
2. the receiver at fixed open-loop rates (500 and 1,000/s): p50 and p99 latency;
3. the highest open-loop rate each server keeps up with, p99 < 20 ms and no error (and,
   for the receiver, nothing lost or stored twice): the two searched alike, a step of
   each in turn (bench/search.py); the receiver's rate as a fraction of the bare app's.

After every receiver run the dispatcher is given time to empty the intake and Redis is
checked: every accepted delivery stored, none stored twice. Redis (embedded unless
REDIS_URL is set) is flushed between runs.

    python -m bench.receiver [--duration 10] [--rates 500,1000] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from redis import Redis
from rq import Queue
from rq.job import Job

from bench.receiver_report import Summary, median_rate, report
from bench.search import Result, Search, Step, alternate, kept_up, sustained
from bench.servers import (
    BARE_COMMAND,
    DISPATCH_COMMAND,
    HOST,
    WEB_COMMAND,
    BenchError,
    Cpus,
    Server,
    cpu_s,
    http_server,
    log_errors,
    pin,
    process,
    redis_server,
)
from bot.app import WEBHOOK_PATH
from bot.intake import decode_entry
from config import keys
from config.settings import load_settings

DISPATCH_TIMEOUT_S = 120.0
LOADGEN_DRAIN_S = 30.0
POLL_S = 0.1


@dataclass(frozen=True)
class Options:
    rates: tuple[int, ...]
    duration: float
    search_duration: float
    rounds: int
    payload_kb: float
    duplicates: float
    connections: int
    open_connections: int
    json: bool


def parse_args(argv: Sequence[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(prog="bench.receiver", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rates", type=_rates, default=(500, 1000), help="open-loop rates")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per run")
    parser.add_argument("--search-duration", type=float, default=5.0, help="per search step")
    parser.add_argument("--rounds", type=int, default=2, help="closed-loop rounds per server")
    parser.add_argument("--payload-kb", type=float, default=19.0)
    parser.add_argument("--duplicates", type=float, default=0.05, help="fraction redelivered")
    parser.add_argument("--connections", type=int, default=16, help="closed loop")
    parser.add_argument("--open-connections", type=int, default=128, help="open loop")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    return Options(**vars(parser.parse_args(argv)))


def _rates(text: str) -> tuple[int, ...]:
    rates = tuple(int(part) for part in text.split(",") if part.strip())
    if not rates or min(rates) <= 0:
        raise argparse.ArgumentTypeError("rates are positive integers, e.g. 500,1000")
    return rates


@dataclass(frozen=True)
class Census:
    """What Redis holds after a run: intake entries plus RQ jobs, by delivery id."""

    entries: int
    delivery_ids: frozenset[str]


def take_census(client: Redis, queue: Queue) -> Census:
    raw = _entries(client, keys.INTAKE) + _entries(client, keys.INTAKE_PROCESSING)
    ids = [decode_entry(entry).delivery for entry in raw]
    for job in Job.fetch_many(queue.job_ids, connection=client):
        if job is not None:
            ids += [meta["delivery"] for meta in job.args[0]]
    return Census(len(ids), frozenset(ids))


def _entries(client: Redis, key: str) -> list[bytes]:
    return cast("list[bytes]", client.lrange(key, 0, -1))


def wait_dispatched(client: Redis, timeout: float) -> float:
    """Seconds until the dispatcher has emptied the intake lists (or `timeout`)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if not client.llen(keys.INTAKE) and not client.llen(keys.INTAKE_PROCESSING):
            break
        time.sleep(POLL_S)
    return time.monotonic() - started


@dataclass
class Bench:
    options: Options
    secret: str
    client: Redis
    queue: Queue
    cpu: int | None
    work_dir: Path
    own_redis: bool  # started by the bench: its AOF is compacted between runs

    def load(self, port: int, pace: list[str], duration: float, connections: int) -> dict[str, Any]:
        """One load generator process; its JSON result."""
        out = self.work_dir / "load.json"
        command = [
            sys.executable, "-m", "bench.loadgen", *pace,
            "--host", HOST, "--port", str(port), "--path", WEBHOOK_PATH,
            "--duration", str(duration), "--connections", str(connections),
            "--payload-kb", str(self.options.payload_kb),
            "--duplicates", str(self.options.duplicates),
            "--drain", str(LOADGEN_DRAIN_S), "--out", str(out),
        ]  # fmt: skip
        child = subprocess.Popen(command, env={**os.environ, "WEBHOOK_SECRET": self.secret})
        pin(child.pid, self.cpu)
        if child.wait(timeout=duration + LOADGEN_DRAIN_S + 60):
            raise BenchError(f"the load generator exited with {child.returncode}")
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return result

    def closed(self, server: Server, checked: bool) -> dict[str, Any]:
        """A closed-loop run, with the server's CPU time per answer (robust to a machine
        that is busy with other work, which the rates are not)."""
        options = self.options
        used = server.cpu_s()
        result = self.load(server.port, ["--closed"], options.duration, options.connections)
        result["cpu_us_per_answer"] = (server.cpu_s() - used) * 1e6 / max(1, result["answered"])
        return self.check(result) if checked else _drop_ids(result)

    def open(self, port: int, rate: float, duration: float) -> dict[str, Any]:
        pace = ["--rate", str(rate)]
        return self.check(self.load(port, pace, duration, self.options.open_connections))

    def check(self, result: dict[str, Any]) -> dict[str, Any]:
        """Wait for the dispatcher, then count what Redis holds against what was accepted."""
        result["dispatch_wait_s"] = wait_dispatched(self.client, DISPATCH_TIMEOUT_S)
        census = take_census(self.client, self.queue)
        accepted = set(result["accepted_ids"])
        result["enqueued"] = census.entries
        result["duplicates_enqueued"] = census.entries - len(census.delivery_ids)
        result["lost"] = len(accepted - census.delivery_ids)
        self.client.flushdb()
        if self.own_redis:
            compact_aof(self.client)
        return _drop_ids(result)

    def open_unchecked(self, port: int, rate: float, duration: float) -> dict[str, Any]:
        """An open-loop run of the bare app, which stores nothing to check."""
        pace = ["--rate", str(rate)]
        return _drop_ids(self.load(port, pace, duration, self.options.open_connections))


def hold_aof_rewrites(client: Redis) -> None:
    """No automatic AOF rewrite during a run. Every delivery adds its ~20 KB body to the
    append-only file, so at thousands per second Redis would fork a rewrite every few
    seconds, and its pauses and its child's CPU (on the load generator's CPU) would be
    measured instead of the receiver. Deliveries are still appended (and fsynced every
    second) as `make run` has it; the file is compacted between runs (`compact_aof`)."""
    client.config_set("auto-aof-rewrite-percentage", 0)


def compact_aof(client: Redis) -> None:
    """Rewrite the (flushed, so nearly empty) AOF, wait for it to finish, and have the
    disk write back what the run left dirty, so that it does not slow the next run."""
    while _persistence(client)["aof_rewrite_in_progress"]:
        time.sleep(POLL_S)
    client.bgrewriteaof()
    time.sleep(POLL_S)
    while _persistence(client)["aof_rewrite_in_progress"] or _persistence(client).get(
        "aof_rewrite_scheduled"
    ):
        time.sleep(POLL_S)
    os.sync()


def _persistence(client: Redis) -> dict[str, Any]:
    return cast("dict[str, Any]", client.info("persistence"))


def _drop_ids(result: dict[str, Any]) -> dict[str, Any]:
    result.pop("accepted_ids", None)
    result.pop("duplicate_ids", None)
    return result


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def run(bench: Bench, bare: Server, web: Server) -> Summary:
    options = bench.options
    _progress("warm-up: both servers, 2 s each")
    bench.load(bare.port, ["--closed"], 2.0, options.connections)
    bench.open(web.port, 200, 2.0)
    bare_runs: list[dict[str, Any]] = []
    web_runs: list[dict[str, Any]] = []
    for round_ in range(1, options.rounds + 1):
        _progress(f"closed loop round {round_}: bare app, then receiver, {options.duration:g} s")
        bare_runs.append(bench.closed(bare, checked=False))
        web_runs.append(bench.closed(web, checked=True))
    fixed = []
    for rate in options.rates:
        _progress(f"receiver at {rate}/s for {options.duration:g} s")
        fixed.append(bench.open(web.port, rate, options.duration))
    searches = _searches(bench, bare, web, bare_runs, web_runs)
    alternate(searches)
    (bare_search, _), (web_search, _) = searches
    return Summary(bare_runs, web_runs, fixed, web_search.runs, bare_search.runs)


def _searches(
    bench: Bench, bare: Server, web: Server, bare_runs: list[Result], web_runs: list[Result]
) -> list[tuple[Search, Step]]:
    """The bare app's search and the receiver's, each from its own closed-loop rate."""
    seconds = bench.options.search_duration

    def bare_step(rate: int) -> Result:
        _progress(f"search: bare app at {rate}/s for {seconds:g} s")
        return bench.open_unchecked(bare.port, rate, seconds)

    def web_step(rate: int) -> Result:
        _progress(f"search: receiver at {rate}/s for {seconds:g} s")
        return bench.open(web.port, rate, seconds)

    return [
        (Search(median_rate(bare_runs), kept_up), bare_step),
        (Search(median_rate(web_runs), sustained), web_step),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_args(argv)
    settings = load_settings()
    cpus = Cpus.choose()
    work_dir = (settings.data_dir / "bench").resolve()  # redis-server chdirs to its --dir
    work_dir.mkdir(parents=True, exist_ok=True)
    logs = {name: work_dir / f"{name}.log" for name in ("web", "dispatch", "bare")}
    secret = secrets.token_hex(20)
    with (
        redis_server(settings.redis_url, work_dir / "redis", cpus.load) as url,
        Redis.from_url(url) as client,
    ):
        if settings.redis_url and client.dbsize():
            raise BenchError(f"{url} is not empty and the bench flushes it: give an empty database")
        env = {"WEBHOOK_SECRET": secret, "REDIS_URL": url, "QUEUE_NAME": settings.queue_name}
        env |= {"LOG_LEVEL": "INFO"}
        with (
            http_server(BARE_COMMAND, env, logs["bare"], cpus.server) as bare,
            http_server(WEB_COMMAND, env, logs["web"], cpus.server) as web,
            process(DISPATCH_COMMAND, env, logs["dispatch"], cpus.load) as dispatcher,
        ):
            queue = Queue(settings.queue_name, connection=client)
            own_redis = not settings.redis_url
            if own_redis:
                hold_aof_rewrites(client)
            bench = Bench(options, secret, client, queue, cpus.load, work_dir, own_redis)
            summary = run(bench, bare, web)
            summary.dispatcher_cpu_s = cpu_s(dispatcher.pid)
        redis_version = client.info()["redis_version"]
    errors = sum(log_errors(path) for path in logs.values())
    report(options, summary, redis_version, cpus.describe(), (logs["web"], errors))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        sys.exit(1)
