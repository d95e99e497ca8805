"""HTTP/1.1 load generator for the webhook receiver; runs in its own process.

Open loop (`--rate`): request i is due at `start + i / rate`, whatever happened to the
ones before it: the scheduler hands it to a pool of keep-alive connections (one request
in flight per connection) and its latency is measured from its due time, so a slow server
shows up as latency rather than as fewer requests (no coordinated omission).

Closed loop (`--closed`): every connection sends its next request as soon as the last one
is answered, for `--duration` seconds: the server's saturation rate at that many
connections (latency measured from the send).

    WEBHOOK_SECRET=s python -m bench.loadgen --port 3000 --path /api/github/webhooks \
        --rate 500 --duration 10 --out result.json

The result (JSON) has the counts, latency percentiles and the ids the receiver
accepted, for the caller to check against Redis.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.deliveries import (
    DEFAULT_PAYLOAD,
    Delivery,
    RequestFactory,
    body_template,
    now,
    plan,
    stream,
)
from bench.wire import Wire, open_wire

START_DELAY_S = 0.1


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
    """What came back: counts, latencies, the ids by answer."""

    latencies: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)  # scheduler lateness (open loop)
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
    rate: float  # 0: closed loop
    duration: float
    payload_kb: float
    duplicates: float
    connections: int
    drain_s: float
    seed: int
    payload_file: Path


Token = tuple[float, Delivery]  # (when its latency starts, what was sent)


class Run:
    """What both loops share: the requests, the connections (callbacks, no task per
    request), the tally; `next_for` says what a connection does once it is free."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        template = body_template(spec.payload_file, int(spec.payload_kb * 1024))
        self.factory = RequestFactory(template, spec.secret, f"{spec.host}:{spec.port}", spec.path)
        self.tally = Tally()
        self.sent = 0
        self.busy = 0
        self.finished = asyncio.Event()

    async def connect(self) -> list[Wire]:
        spec = self.spec
        return [
            await open_wire(spec.host, spec.port, self.on_answer, self.on_lost)
            for _ in range(spec.connections)
        ]

    def send(self, wire: Wire, token: Token) -> None:
        self.sent += 1
        self.busy += 1
        wire.send(self.factory.build(token[1]), token)

    def on_answer(self, wire: Wire, status: int, body: bytes) -> None:
        due, delivery = wire.busy
        wire.busy = None
        self.busy -= 1
        self.tally.last_answer = moment = now()
        self.tally.answer(delivery, status, body, moment - due)
        self.next_for(wire)

    def on_lost(self, wire: Wire) -> None:
        if wire.busy is not None:
            wire.busy = None
            self.busy -= 1
            self.tally.errors["connection closed with a request in flight"] += 1
        self.forget(wire)
        asyncio.get_running_loop().create_task(self._replace())

    async def _replace(self) -> None:
        try:
            wire = await open_wire(self.spec.host, self.spec.port, self.on_answer, self.on_lost)
        except OSError as exc:
            self.tally.errors[type(exc).__name__] += 1
            self.check_finished()
            return
        self.next_for(wire)

    def next_for(self, wire: Wire) -> None:
        raise NotImplementedError

    def forget(self, wire: Wire) -> None:
        """A closed connection is no longer free."""

    def check_finished(self) -> None:
        raise NotImplementedError


class OpenRun(Run):
    """Request i is due at start + i / rate: released to a free connection, or queued."""

    def __init__(self, spec: Spec) -> None:
        super().__init__(spec)
        count = round(spec.rate * spec.duration)
        self.deliveries = plan(count, spec.duplicates, random.Random(spec.seed))
        self.free: deque[Wire] = deque()
        self.backlog: deque[Token] = deque()
        self.scheduled = False

    async def run(self) -> dict[str, Any]:
        spec = self.spec
        self.free.extend(await self.connect())
        start = now() + START_DELAY_S
        await self._schedule(start)
        self.scheduled = True
        self.check_finished()
        deadline = start + spec.duration + spec.drain_s
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.finished.wait(), deadline - now())
        unanswered = self.busy + len(self.backlog)
        if unanswered:
            self.tally.errors["no answer by the drain deadline"] += unanswered
        for wire in self.free:
            wire.close()
        return self.tally.summary(spec.rate, spec.duration, len(self.deliveries), start)

    async def _schedule(self, start: float) -> None:
        """Release every request that is due, then sleep until the next one is."""
        interval = 1 / self.spec.rate
        for index, delivery in enumerate(self.deliveries):
            due = start + index * interval
            if due > now():
                await asyncio.sleep(due - now())  # uvloop: whole ms, so a few at a time
            self.tally.lags.append(now() - due)
            if self.free:
                self.send(self.free.pop(), (due, delivery))
            else:
                self.backlog.append((due, delivery))

    def next_for(self, wire: Wire) -> None:
        if self.backlog:
            self.send(wire, self.backlog.popleft())
            return
        self.free.append(wire)
        self.check_finished()

    def forget(self, wire: Wire) -> None:
        with contextlib.suppress(ValueError):
            self.free.remove(wire)

    def check_finished(self) -> None:
        if self.scheduled and not self.backlog and not self.busy:
            self.finished.set()


class ClosedRun(Run):
    """Every connection sends its next request as soon as the last one is answered."""

    def __init__(self, spec: Spec) -> None:
        super().__init__(spec)
        self.deliveries: Iterator[Delivery] = stream(spec.duplicates, random.Random(spec.seed))
        self.stop = 0.0
        self.idle: list[Wire] = []

    async def run(self) -> dict[str, Any]:
        spec = self.spec
        wires = await self.connect()
        start = now()
        self.stop = start + spec.duration
        for wire in wires:
            self.next_for(wire)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.finished.wait(), spec.duration + spec.drain_s)
        if self.busy:
            self.tally.errors["no answer by the drain deadline"] += self.busy
        for wire in self.idle:
            wire.close()
        result = self.tally.summary(0, spec.duration, self.sent, start)
        result["connections"] = spec.connections
        return result

    def next_for(self, wire: Wire) -> None:
        moment = now()
        if moment < self.stop:
            self.send(wire, (moment, next(self.deliveries)))
            return
        self.idle.append(wire)
        self.check_finished()

    def check_finished(self) -> None:
        if not self.busy and now() >= self.stop:
            self.finished.set()


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
    pace = parser.add_mutually_exclusive_group(required=True)
    pace.add_argument("--rate", type=float, help="requests per second (open loop)")
    pace.add_argument("--closed", action="store_true", help="closed loop: as fast as answered")
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
    if args.pop("closed"):
        args["rate"] = 0.0
    return Spec(secret=secret, **args), out


def main(argv: Sequence[str] | None = None) -> int:
    spec, out = parse_args(argv)
    run = ClosedRun(spec) if spec.rate == 0 else OpenRun(spec)
    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        result = runner.run(run.run())
    text = json.dumps(result)
    if out is None:
        print(text)
    else:
        out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
