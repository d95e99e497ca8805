"""Open-loop HTTP/1.1 load generator for the webhook receiver; runs in its own process.

Request i is due at `start + i / rate`, whatever happened to the ones before it: the
scheduler hands it to a pool of keep-alive connections (one request in flight per
connection) and its latency is measured from its due time, so a slow server shows up
as latency rather than as fewer requests (no coordinated omission). Each request is a
signed `issues` `labeled` delivery padded to the wanted size with a long issue body,
with a fresh X-GitHub-Delivery, except a chosen fraction that repeats an earlier
delivery (same id, same body), as a GitHub redelivery would.

    WEBHOOK_SECRET=s python -m bench.loadgen --port 3000 --path /api/github/webhooks \
        --rate 500 --duration 10 --out result.json

The result (JSON) has the counts, latency percentiles and the ids the receiver
accepted, for the caller to check against Redis.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import hmac
import json
import math
import os
import random
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_PAYLOAD = (
    Path(__file__).resolve().parent.parent
    / "tests"
    / "corpus"
    / "webhooks"
    / "issues"
    / "labeled.payload.json"
)
NUMBER_SENTINEL = b"918273645"  # the issue number's place in the body template
REQUEST_TIMEOUT_S = 30.0
START_DELAY_S = 0.1
HEADER_END = b"\r\n\r\n"

# Not loop.time(): uvloop's clock only advances in whole milliseconds.
now = time.perf_counter

# The padding: what a long bug report looks like (steps, logs, a stack trace).
FILLER = """

### Steps to reproduce

1. Install the app on a repository with branch protection enabled.
2. Label an issue with `agentium` while a review is pending on the default branch.
3. Wait for the check run to appear on the pull request.

### Expected

The check run reports the phase and links to the issue; the pull request is updated.

### Actual

The check run stays queued and the log shows:

```
Traceback (most recent call last):
  File "/srv/app/workers/jobs.py", line 88, in handle_delivery
    task = store.claim(repo, issue, lease_s=120)
  File "/srv/app/workers/tasks.py", line 141, in claim
    raise LockBusy(f"{repo}#{issue} is held by {holder} until {expires}")
workers.tasks.LockBusy: octo-org/octo-repo#1347 is held by w1 until 2024-05-02T10:41:07Z
```

Environment: Ubuntu 22.04, Python 3.11.7, Redis 7.2.4, two workers behind nginx.
"""


@dataclass(frozen=True, slots=True)
class Delivery:
    delivery_id: str
    number: int  # the issue number written into the body


@dataclass(frozen=True, slots=True)
class BodyTemplate:
    """A JSON body with a hole where the issue number goes."""

    head: bytes
    tail: bytes

    def render(self, number: int) -> bytes:
        return b"%b%d%b" % (self.head, number, self.tail)


def _dump(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":")).encode()


def body_template(payload_file: Path, size: int) -> BodyTemplate:
    """The corpus payload with its issue body lengthened so the whole is about `size` bytes."""
    payload = json.loads(payload_file.read_text(encoding="utf-8"))
    issue = payload["issue"]
    issue["number"] = int(NUMBER_SENTINEL)
    text = (issue.get("body") or "") + FILLER * (size // len(FILLER) + 1)
    while True:
        issue["body"] = text
        excess = len(_dump(payload)) - size
        if excess <= 0:
            break
        text = text[: -max(1, excess // 2)]  # escaped characters take two bytes
    encoded = _dump(payload)
    if encoded.count(NUMBER_SENTINEL) != 1:
        raise ValueError(f"{payload_file}: the number placeholder is not unique")
    head, _, tail = encoded.partition(NUMBER_SENTINEL)
    return BodyTemplate(head, tail)


def plan(count: int, duplicates: float, rng: random.Random) -> list[Delivery]:
    """`count` deliveries; about `duplicates` of them repeat an earlier one."""
    deliveries: list[Delivery] = []
    for index in range(count):
        if deliveries and rng.random() < duplicates:
            deliveries.append(deliveries[rng.randrange(len(deliveries))])
        else:
            fresh = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            deliveries.append(Delivery(fresh, index + 1))
    return deliveries


class RequestFactory:
    """Hand-written HTTP/1.1 requests, headers as GitHub sends them."""

    def __init__(self, template: BodyTemplate, secret: str, host: str, path: str) -> None:
        self._template = template
        self._key = secret.encode()
        self._start = f"POST {path} HTTP/1.1\r\nHost: {host}\r\n"

    def build(self, delivery: Delivery) -> bytes:
        body = self._template.render(delivery.number)
        signature = hmac.new(self._key, body, hashlib.sha256).hexdigest()
        head = (
            f"{self._start}User-Agent: GitHub-Hookshot/bench\r\n"
            "Accept: */*\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n"
            "X-GitHub-Event: issues\r\nX-GitHub-Hook-ID: 1\r\n"
            f"X-GitHub-Delivery: {delivery.delivery_id}\r\n"
            f"X-Hub-Signature-256: sha256={signature}\r\n\r\n"
        )
        return head.encode() + body


async def sleep_until(moment: float) -> None:
    """Sleep to a `now()` moment; uvloop's timers work in whole ms and may fire early."""
    wait = moment - now()
    while wait > 0:
        await asyncio.sleep(wait)
        wait = moment - now()


def _content_length(head: bytes) -> int:
    for line in head.lower().split(b"\r\n"):
        if line.startswith(b"content-length:"):
            return int(line.partition(b":")[2])
    return 0


class Connection:
    """One keep-alive connection; one request at a time."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    @classmethod
    async def open(cls, host: str, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer)

    @property
    def usable(self) -> bool:
        """False once the server has closed it (e.g. its keep-alive timeout)."""
        return not self._reader.at_eof() and not self._writer.is_closing()

    async def exchange(self, request: bytes) -> tuple[int, bytes]:
        self._writer.write(request)
        head = await self._reader.readuntil(HEADER_END)
        status = int(head.split(b" ", 2)[1])
        return status, await self._reader.readexactly(_content_length(head))

    def close(self) -> None:
        self._writer.close()


def percentiles_ms(values: Sequence[float]) -> dict[str, float]:
    """Nearest-rank p50/p99 and the maximum, in milliseconds (zeros when empty)."""
    if not values:
        return {"p50": 0.0, "p99": 0.0, "max": 0.0}
    ordered = sorted(values)

    def rank(q: float) -> float:
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)] * 1000

    return {"p50": rank(0.50), "p99": rank(0.99), "max": ordered[-1] * 1000}


@dataclass
class Tally:
    """What came back: counts, latencies from the due time, the ids by answer."""

    latencies: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)  # scheduler lateness
    accepted: list[str] = field(default_factory=list)
    repeated: list[str] = field(default_factory=list)
    rejected: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    last_answer: float = 0.0

    def answer(self, delivery: Delivery, status: int, body: bytes, latency: float) -> None:
        self.latencies.append(latency)
        if status == 202 and b'"enqueued"' in body:
            self.accepted.append(delivery.delivery_id)
        elif status == 202 and b'"duplicate"' in body:
            self.repeated.append(delivery.delivery_id)
        else:
            self.rejected[f"{status} {body[:60].decode(errors='replace')}"] += 1

    def summary(self, rate: float, duration: float, sent: int, start: float) -> dict[str, Any]:
        answered = len(self.latencies)
        elapsed = self.last_answer - start
        return {
            "offered_rate": rate,
            "duration_s": duration,
            "sent": sent,
            "answered": answered,
            "achieved_rate": answered / elapsed if elapsed > 0 else 0.0,
            "accepted": len(self.accepted),
            "duplicates_answered": len(self.repeated),
            "rejected": dict(self.rejected),
            "errors": dict(self.errors),
            "latency_ms": percentiles_ms(self.latencies),
            "generator_lag_ms": percentiles_ms(self.lags),
            "accepted_ids": self.accepted,
            "duplicate_ids": self.repeated,
        }


@dataclass(frozen=True)
class Spec:
    host: str
    port: int
    path: str
    secret: str
    rate: float
    duration: float
    payload_kb: float
    duplicates: float
    connections: int
    drain_s: float
    seed: int
    payload_file: Path


Item = tuple[float, Delivery] | None


class LoadRun:
    """One run at one rate: a scheduler feeding a pool of connection workers."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        template = body_template(spec.payload_file, int(spec.payload_kb * 1024))
        self.factory = RequestFactory(template, spec.secret, f"{spec.host}:{spec.port}", spec.path)
        count = round(spec.rate * spec.duration)
        self.deliveries = plan(count, spec.duplicates, random.Random(spec.seed))
        self.tally = Tally()
        self.queue: asyncio.Queue[Item] = asyncio.Queue()

    async def run(self) -> dict[str, Any]:
        spec = self.spec
        pool = [await Connection.open(spec.host, spec.port) for _ in range(spec.connections)]
        start = now() + START_DELAY_S
        deadline = start + spec.duration + spec.drain_s
        workers = [asyncio.create_task(self._work(c, deadline)) for c in pool]
        await self._schedule(start)
        for _ in workers:
            self.queue.put_nowait(None)
        await asyncio.gather(*workers)
        return self.tally.summary(spec.rate, spec.duration, len(self.deliveries), start)

    async def _schedule(self, start: float) -> None:
        for index, delivery in enumerate(self.deliveries):
            due = start + index / self.spec.rate
            await sleep_until(due)
            self.tally.lags.append(now() - due)
            self.queue.put_nowait((due, delivery))

    async def _work(self, connection: Connection | None, deadline: float) -> None:
        while (item := await self.queue.get()) is not None:
            due, delivery = item
            if now() > deadline:
                self.tally.errors["not sent (drain deadline)"] += 1
                continue
            try:
                if connection is None or not connection.usable:
                    connection = await Connection.open(self.spec.host, self.spec.port)
                request = self.factory.build(delivery)
                answer = await asyncio.wait_for(connection.exchange(request), REQUEST_TIMEOUT_S)
            except (OSError, EOFError, asyncio.LimitOverrunError, TimeoutError, ValueError) as exc:
                self.tally.errors[type(exc).__name__] += 1
                if connection is not None:
                    connection.close()
                connection = None
                continue
            self.tally.last_answer = now()
            self.tally.answer(delivery, *answer, latency=self.tally.last_answer - due)
        if connection is not None:
            connection.close()


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def parse_args(argv: Sequence[str] | None = None) -> tuple[Spec, Path | None]:
    parser = argparse.ArgumentParser(prog="bench.loadgen", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--path", required=True, help="the webhook route")
    parser.add_argument("--rate", type=float, required=True, help="requests per second")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of sending")
    parser.add_argument("--payload-kb", type=float, default=20.0)
    parser.add_argument("--duplicates", type=float, default=0.05, help="fraction repeated")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--drain", dest="drain_s", type=float, default=30.0, help="seconds")
    parser.add_argument("--seed", type=int, default=random.SystemRandom().getrandbits(32))
    parser.add_argument("--payload-file", type=Path, default=DEFAULT_PAYLOAD)
    parser.add_argument("--out", type=Path, default=None, help="JSON result (default stdout)")
    args = vars(parser.parse_args(argv))
    secret = os.environ.get("WEBHOOK_SECRET")
    if not secret:
        parser.error("WEBHOOK_SECRET must be set in the environment")
    out = args.pop("out")
    return Spec(secret=secret, **args), out


def main(argv: Sequence[str] | None = None) -> int:
    spec, out = parse_args(argv)
    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        result = runner.run(LoadRun(spec).run())
    text = json.dumps(result)
    if out is None:
        print(text)
    else:
        out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
