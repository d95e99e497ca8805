"""`make bench`: the webhook receiver's throughput and latency over real HTTP, with Redis.

One uvicorn worker (`python -m workers.processes.cli web`, pinned to the first CPU) receives signed
~20 KB `issues` `labeled` deliveries from a load generator in another process
(`bench.loadgen`, pinned to the second CPU, with Redis) at fixed open-loop rates. After
each rate the dispatcher is given time to turn the intake into RQ jobs and Redis is
checked: every accepted delivery stored, none stored twice. Redis (embedded unless
REDIS_URL is set) is flushed between rates.

    python -m bench.receiver [--rates 100,500,1000,2000] [--duration 10] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import platform
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from redis import Redis
from rq import Queue
from rq.job import Job

from bot.app import WEBHOOK_PATH
from bot.intake import decode_entry
from config import keys
from config.settings import load_settings
from workers.processes.embedded_redis import EmbeddedRedis, free_port

HOST = "127.0.0.1"
DEFAULT_RATES = (100, 500, 1000, 2000)
TARGET_RATE = 500
TARGET_P99_MS = 20.0
WARMUP_RATE, WARMUP_S = 200, 2.0
HEALTH_TIMEOUT_S = 30.0
DISPATCH_TIMEOUT_S = 120.0
LOADGEN_DRAIN_S = 30.0
POLL_S = 0.1
WEB_COMMAND = (sys.executable, "-m", "workers.processes.cli", "web")  # what `make run` starts


class BenchError(RuntimeError):
    pass


@dataclass(frozen=True)
class Options:
    rates: tuple[int, ...]
    duration: float
    payload_kb: float
    duplicates: float
    connections: int
    json: bool


@dataclass(frozen=True)
class Cpus:
    """Where each side runs; None when there is a single CPU (nothing is pinned)."""

    server: int | None
    load: int | None


def parse_args(argv: Sequence[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(prog="bench.receiver", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rates", type=_rates, default=DEFAULT_RATES, help="e.g. 100,500,1000")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per rate")
    parser.add_argument("--payload-kb", type=float, default=20.0)
    parser.add_argument("--duplicates", type=float, default=0.05, help="fraction redelivered")
    parser.add_argument("--connections", type=int, default=32, help="keep-alive connections")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    return Options(**vars(parser.parse_args(argv)))


def _rates(text: str) -> tuple[int, ...]:
    rates = tuple(int(part) for part in text.split(",") if part.strip())
    if not rates or min(rates) <= 0:
        raise argparse.ArgumentTypeError("rates are positive integers, e.g. 100,500")
    return rates


def choose_cpus() -> Cpus:
    available = sorted(os.sched_getaffinity(0))
    if len(available) < 2:
        return Cpus(None, None)
    return Cpus(available[0], available[1])


def pin(pid: int, cpu: int | None) -> None:
    """Pin every thread of a process (threads it starts later inherit it)."""
    if cpu is None:
        return
    for task in (Path("/proc") / str(pid) / "task").iterdir():
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(int(task.name), {cpu})


@contextlib.contextmanager
def redis_server(external: str | None, data_dir: Path, cpu: int | None) -> Iterator[str]:
    """The Redis to use: REDIS_URL as is, or a fresh embedded one (pinned to `cpu`)."""
    if external:
        yield external
        return
    shutil.rmtree(data_dir, ignore_errors=True)
    with EmbeddedRedis(data_dir=data_dir) as server:
        assert server.process is not None
        pin(server.process.pid, cpu)
        yield server.url


@contextlib.contextmanager
def web_receiver(env: dict[str, str], log_path: Path, cpu: int | None) -> Iterator[int]:
    """`python -m workers.processes.cli web` on a free port; yields it once /healthz is 200."""
    port = free_port()
    env = {**os.environ, **env, "HOST": HOST, "PORT": str(port)}
    with log_path.open("wb") as log:
        process = subprocess.Popen(WEB_COMMAND, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_healthy(process, port, log_path)
        pin(process.pid, cpu)
        yield port
    finally:
        _stop(process)


def _wait_healthy(process: subprocess.Popen[bytes], port: int, log_path: Path) -> None:
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BenchError(f"the web process exited with {process.returncode}; see {log_path}")
        if _health_status(port) == 200:
            return
        time.sleep(POLL_S)
    raise BenchError(f"the web process did not answer /healthz in time; see {log_path}")


def _health_status(port: int) -> int | None:
    connection = http.client.HTTPConnection(HOST, port, timeout=1.0)
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status
    except OSError:
        return None
    finally:
        connection.close()


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@dataclass(frozen=True)
class Census:
    """What Redis holds after a run: intake entries plus RQ jobs, by delivery id."""

    entries: int
    delivery_ids: frozenset[str]
    pending: int  # still in the intake lists (not yet RQ jobs)


def take_census(client: Redis, queue: Queue) -> Census:
    raw = _entries(client, keys.INTAKE) + _entries(client, keys.INTAKE_PROCESSING)
    ids = [decode_entry(entry).delivery for entry in raw]
    for job in Job.fetch_many(queue.job_ids, connection=client):
        if job is not None:
            ids += [meta["delivery"] for meta in job.args[0]]
    return Census(len(ids), frozenset(ids), len(raw))


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
    port: int
    secret: str
    client: Redis
    queue: Queue
    cpu: int | None
    work_dir: Path

    def load(self, rate: float, duration: float) -> dict[str, Any]:
        """One load generator process at `rate`; its JSON result."""
        out = self.work_dir / f"load-{rate:g}.json"
        command = [
            sys.executable, "-m", "bench.loadgen",
            "--host", HOST, "--port", str(self.port), "--path", WEBHOOK_PATH,
            "--rate", str(rate), "--duration", str(duration),
            "--payload-kb", str(self.options.payload_kb),
            "--duplicates", str(self.options.duplicates),
            "--connections", str(self.options.connections),
            "--drain", str(LOADGEN_DRAIN_S), "--out", str(out),
        ]  # fmt: skip
        env = {**os.environ, "WEBHOOK_SECRET": self.secret}
        process = subprocess.Popen(command, env=env)
        pin(process.pid, self.cpu)
        code = process.wait(timeout=duration + LOADGEN_DRAIN_S + 60)
        if code:
            raise BenchError(f"the load generator exited with {code} at {rate}/s")
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return result

    def measure(self, rate: int) -> dict[str, Any]:
        self.client.flushdb()
        _progress(f"{rate} requests/s for {self.options.duration:g} s ...")
        result = self.load(rate, self.options.duration)
        result["dispatch_wait_s"] = wait_dispatched(self.client, DISPATCH_TIMEOUT_S)
        census = take_census(self.client, self.queue)
        accepted = set(result.pop("accepted_ids"))
        result.pop("duplicate_ids")
        result["enqueued"] = census.entries
        result["duplicates_enqueued"] = census.entries - len(census.delivery_ids)
        result["lost"] = len(accepted - census.delivery_ids)
        result["still_in_intake"] = census.pending
        return result

    def warm_up(self) -> None:
        _progress(f"warm-up: {WARMUP_RATE} requests/s for {WARMUP_S:g} s")
        self.load(WARMUP_RATE, WARMUP_S)
        wait_dispatched(self.client, DISPATCH_TIMEOUT_S)


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def machine() -> dict[str, Any]:
    model = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.partition(":")[2].strip()
                break
    return {"nproc": os.cpu_count(), "cpu": model, "python": platform.python_version()}


def verdict(results: Sequence[dict[str, Any]]) -> str:
    at = next((r for r in results if r["offered_rate"] == TARGET_RATE), None)
    if at is None:
        return f"verdict: not measured (add {TARGET_RATE} to --rates)"
    p99 = at["latency_ms"]["p99"]
    problems = [
        f"{name} {value}"
        for name, value in (
            ("errors", _failures(at)),
            ("lost", at["lost"]),
            ("duplicates enqueued", at["duplicates_enqueued"]),
        )
        if value
    ]
    passed = p99 < TARGET_P99_MS and not problems
    return (
        f"verdict: {'PASS' if passed else 'FAIL'}: p99 {p99:.1f} ms at {TARGET_RATE} requests/s "
        f"on one uvicorn worker (target < {TARGET_P99_MS:g} ms)"
        + (f"; {', '.join(problems)}" if problems else "")
    )


def _failures(result: dict[str, Any]) -> int:
    return int(sum(result["rejected"].values()) + sum(result["errors"].values()))


Column = tuple[str, Callable[[dict[str, Any]], str]]
COLUMNS: tuple[Column, ...] = (
    ("offered/s", lambda r: f"{r['offered_rate']:g}"),
    ("achieved/s", lambda r: f"{r['achieved_rate']:.0f}"),
    ("accepted", lambda r: str(r["accepted"])),
    ("dup 202", lambda r: str(r["duplicates_answered"])),
    ("rej/err", lambda r: str(_failures(r))),
    ("p50 ms", lambda r: f"{r['latency_ms']['p50']:.2f}"),
    ("p99 ms", lambda r: f"{r['latency_ms']['p99']:.2f}"),
    ("max ms", lambda r: f"{r['latency_ms']['max']:.1f}"),
    ("enqueued", lambda r: str(r["enqueued"])),
    ("dup enq", lambda r: str(r["duplicates_enqueued"])),
    ("lost", lambda r: str(r["lost"])),
    ("dispatch s", lambda r: f"{r['dispatch_wait_s']:.1f}"),
)


def table(results: Sequence[dict[str, Any]]) -> str:
    rows = [[name for name, _ in COLUMNS]]
    rows += [[cell(result) for _, cell in COLUMNS] for result in results]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    return "\n".join(
        "  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in rows
    )


def details(results: Sequence[dict[str, Any]]) -> list[str]:
    """Rejections and errors by kind, and the generator's own lateness, when notable."""
    lines = []
    for result in results:
        for kind in ("rejected", "errors"):
            for what, count in result[kind].items():
                lines.append(f"  at {result['offered_rate']:g}/s {kind}: {count} x {what}")
    lags = ", ".join(f"{r['offered_rate']:g}/s {r['generator_lag_ms']['p99']:.1f}" for r in results)
    lines.append(f"  load generator lateness p99 (ms, included in latency): {lags}")
    return lines


def report(options: Options, info: dict[str, Any], results: list[dict[str, Any]]) -> None:
    if options.json:
        print(json.dumps({"machine": info, "results": results, "verdict": verdict(results)}))
        return
    print(
        f"receiver benchmark: {info['nproc']} CPUs ({info['cpu']}), Python {info['python']}, "
        f"Redis {info['redis']}; {options.payload_kb:g} KB signed issues.labeled, "
        f"{options.duplicates:.0%} redeliveries, {options.connections} keep-alive connections, "
        f"{options.duration:g} s per rate; {info['pinning']}"
    )
    print(table(results))
    print("\n".join(details(results)))
    print(f"  web process log: {info['web_log']} ({info['web_log_errors']} error lines)")
    print(verdict(results))


def log_errors(log_path: Path) -> int:
    """Error lines the web process logged (e.g. Redis failures, dispatcher steps)."""
    with log_path.open(encoding="utf-8", errors="replace") as log:
        return sum('"level": "error"' in line for line in log)


def _pinning(cpus: Cpus) -> str:
    if cpus.server is None:
        return "single CPU: nothing pinned"
    return f"web pinned to CPU {cpus.server}, load generator and Redis to CPU {cpus.load}"


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_args(argv)
    settings = load_settings()
    cpus = choose_cpus()
    work_dir = (settings.data_dir / "bench").resolve()  # redis-server chdirs to its --dir
    work_dir.mkdir(parents=True, exist_ok=True)
    log_path = work_dir / "web.log"
    secret = secrets.token_hex(20)
    with (
        redis_server(settings.redis_url, work_dir / "redis", cpus.load) as url,
        Redis.from_url(url) as client,
    ):
        if settings.redis_url and client.dbsize():
            raise BenchError(f"{url} is not empty and the bench flushes it: give an empty database")
        env = {"WEBHOOK_SECRET": secret, "REDIS_URL": url, "QUEUE_NAME": settings.queue_name}
        with web_receiver({**env, "LOG_LEVEL": "INFO"}, log_path, cpus.server) as port:
            queue = Queue(settings.queue_name, connection=client)
            bench = Bench(options, port, secret, client, queue, cpus.load, work_dir)
            bench.warm_up()
            results = [bench.measure(rate) for rate in options.rates]
        redis_version = client.info()["redis_version"]
    info = {
        **machine(),
        "redis": redis_version,
        "pinning": _pinning(cpus),
        "web_log": str(log_path),
        "web_log_errors": log_errors(log_path),
    }
    report(options, info, results)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        sys.exit(1)
