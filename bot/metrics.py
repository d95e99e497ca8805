"""GET /metrics in Prometheus' text format.

Two kinds of figures. The receiver's (deliveries by event and decision, latency) are
counted in memory by the process that answered the webhook: with several web processes,
sum them in Prometheus. Everything about tasks and queues is read from Redis at scrape
time (the newest ``MAX_TASKS`` tasks), so any web process reports the same.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator
from itertools import accumulate

from prometheus_client import CollectorRegistry
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.exposition import generate_latest
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString
from redis.exceptions import RedisError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from bot.dashboard.figures import queue_families, recovery_family, tally, task_families
from bot.dashboard.reader import TaskReader
from bot.events import EVENT_ACTIONS
from config import keys

MAX_TASKS = 5000
# Prometheus' classic text format, which generate_latest writes for these (legacy) names;
# every Prometheus version reads it.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)
_BOUNDS = (*map(floatToGoString, LATENCY_BUCKETS), "+Inf")  # the buckets' `le` labels
KNOWN_EVENTS = frozenset({*EVENT_ACTIONS, "ping"})


def event_label(event: str, decision: str | None) -> str:
    """The event as a label; only events whose signature was checked and that GitHub
    is known to send are named (a label must not take arbitrary header values)."""
    if decision is None:
        return "unverified"
    return event if event in KNOWN_EVENTS else "other"


def decision_label(decision: str | None, status: int) -> str:
    if status >= 500:
        return "unavailable"
    return decision if decision is not None and status < 400 else f"rejected:{status}"


class ReceiverMetrics(Collector):
    """What the receiver counts in memory; ``observe`` is called once per delivery.

    It runs on the request path, so it only adds to plain counters (the event loop's
    thread is the only writer); the Prometheus families are built from them when
    /metrics is scraped.
    """

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.registry.register(self)
        ProcessCollector(registry=self.registry)
        self._answers: dict[tuple[str, str], int] = {}  # (event, decision) labels: bounded
        self._buckets = [0] * (len(LATENCY_BUCKETS) + 1)  # the last one: past every bound
        self._seconds = 0.0

    def observe(self, event: str, decision: str | None, status: int, seconds: float) -> None:
        labels = (event_label(event, decision), decision_label(decision, status))
        self._answers[labels] = self._answers.get(labels, 0) + 1
        self._buckets[bisect_left(LATENCY_BUCKETS, seconds)] += 1
        self._seconds += seconds

    def collect(self) -> Iterator[Metric]:
        deliveries = CounterMetricFamily(
            "agentium_webhook_deliveries", "Webhook deliveries answered, by event and decision",
            labels=["event", "decision"],
        )  # fmt: skip
        for labels, count in list(self._answers.items()):
            deliveries.add_metric(labels, count)
        yield deliveries
        cumulative = accumulate(self._buckets)
        yield HistogramMetricFamily(
            "agentium_webhook_duration_seconds", "Time to answer a webhook delivery",
            buckets=list(zip(_BOUNDS, cumulative, strict=True)), sum_value=self._seconds,
        )  # fmt: skip


class _Families(Collector):
    def __init__(self, families: Iterable[Metric]) -> None:
        self._families = list(families)

    def collect(self) -> Iterator[Metric]:
        return iter(self._families)


class MetricsEndpoint:
    def __init__(self, receiver: ReceiverMetrics, reader: TaskReader, queue_name: str) -> None:
        self._receiver = receiver
        self._reader = reader
        self._queue_name = queue_name

    async def stored(self) -> list[Metric]:
        """Tasks and queues as Redis has them now (the parsing runs off the event loop)."""
        queues = {
            "intake": await self._reader.intake(keys.INTAKE),
            "intake_processing": await self._reader.intake(keys.INTAKE_PROCESSING),
            "rq": await self._reader.rq_queue(self._queue_name),
        }
        raws, indexed = await self._reader.newest_raw(MAX_TASKS)
        counted = await run_in_threadpool(tally, raws)
        recovery = recovery_family(await self._reader.recovery_counts())
        return [*task_families(counted, indexed), recovery, *queue_families(queues)]

    async def __call__(self, request: Request) -> Response:
        families = list(self._receiver.registry.collect())
        try:
            families.extend(await self.stored())
            up = 1.0
        except (RedisError, OSError):
            up = 0.0
        families.append(GaugeMetricFamily("agentium_redis_up", "Redis answered", value=up))
        registry = CollectorRegistry()
        registry.register(_Families(families))
        return Response(generate_latest(registry), media_type=CONTENT_TYPE)
