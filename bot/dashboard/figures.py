"""Metric families computed from the stored tasks and the queues at scrape time (pure).

Everything here comes from Redis, so every web process reports the same figures. The
task figures are gauges over the scanned tasks (a task leaving the window lowers them);
the recovery ladder's steps are a counter the workers keep.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

from bot.dashboard.model import SpendView, TaskView, parse_task
from bot.dashboard.reader import QueueFigures

ITERATION_BUCKETS = (1, 2, 3, 4, 5, 7, 10)
TOKEN_KINDS = ("input", "output", "cache_write", "cache_read")
NONE = "none"


@dataclass
class Tally:
    tasks: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    iterations: dict[str, list[int]] = field(default_factory=dict)
    overrides: Counter[tuple[str, str]] = field(default_factory=Counter)
    blocked: Counter[str] = field(default_factory=Counter)
    nomerge: int = 0
    tokens: Counter[tuple[str, str]] = field(default_factory=Counter)
    dollars: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    calls: Counter[str] = field(default_factory=Counter)
    scanned: int = 0

    def add(self, task: TaskView) -> None:
        flow = task.workflow
        self.scanned += 1
        self.tasks[(task.status, flow.phase, flow.path or NONE)] += 1
        for phase, count in flow.iterations.items():
            if count > 0:
                self.iterations.setdefault(phase, []).append(count)
        self.overrides.update((o.phase, o.rule) for o in flow.overrides)
        if flow.phase == "BLOCKED":
            self.blocked["paused" if flow.paused else "final"] += 1
        self.nomerge += int(task.nomerge)
        self._add_spend(flow.spend)

    def _add_spend(self, spend: SpendView) -> None:
        models = spend.by_model or ({"unknown": spend} if spend.calls or spend.cost_usd else {})
        for model, figures in models.items():
            amounts = (
                figures.input_tokens, figures.output_tokens,
                figures.cache_write_tokens, figures.cache_read_tokens,
            )  # fmt: skip
            for kind, amount in zip(TOKEN_KINDS, amounts, strict=True):
                self.tokens[(model, kind)] += amount
            self.dollars[model] += figures.cost_usd
            self.calls[model] += figures.calls


def tally(raws: Iterable[bytes]) -> Tally:
    result = Tally()
    for raw in raws:
        task = parse_task(raw)
        if task is not None:
            result.add(task)
    return result


Samples = Iterable[tuple[tuple[str, ...], float]]


def _gauge(name: str, doc: str, labels: list[str], values: Samples) -> Metric:
    family = GaugeMetricFamily(name, doc, labels=labels)
    for label_values, value in sorted(values):
        family.add_metric(list(label_values), value)
    return family


def _single(name: str, doc: str, value: float) -> Metric:
    return GaugeMetricFamily(name, doc, value=value)


def _iterations(per_phase: Mapping[str, list[int]]) -> Metric:
    family = HistogramMetricFamily(
        "agentium_task_iterations",
        "Iterations a task reached in each phase it entered (scanned tasks)",
        labels=["phase"],
    )
    for phase, counts in sorted(per_phase.items()):
        buckets = [
            (str(float(b)), float(sum(1 for c in counts if c <= b))) for b in ITERATION_BUCKETS
        ]
        buckets.append(("+Inf", float(len(counts))))
        family.add_metric([phase], buckets, sum_value=float(sum(counts)))
    return family


def _one_label(values: Mapping[str, float]) -> Samples:
    return [((name,), value) for name, value in values.items()]


def recovery_family(counts: Mapping[str, int]) -> Metric:
    """``agentium_recovery_total{action}``: the recovery ladder's steps ever taken, counted
    by the workers as they save them (so it never goes down, as a counter must)."""
    family = CounterMetricFamily(
        "agentium_recovery", "Recovery ladder steps taken, by action", labels=["action"]
    )
    for action, count in sorted(counts.items()):
        family.add_metric([action], float(count))
    return family


def task_families(t: Tally, indexed: int) -> list[Metric]:
    blocked = {"paused": t.blocked["paused"], "final": t.blocked["final"]}
    return [
        _single("agentium_tasks_indexed", "Tasks in the task index", indexed),
        _single("agentium_tasks_scanned", "Newest tasks read for these figures", t.scanned),
        _gauge("agentium_tasks", "Tasks by status, phase and path", ["status", "phase", "path"],
               t.tasks.items()),
        _iterations(t.iterations),
        _gauge("agentium_overrides", "Controller overrides of the judge, by phase and rule",
               ["phase", "rule"], t.overrides.items()),
        _single("agentium_tasks_nomerge",
                "Tasks whose controller overrode the judge (PR left as a NOMERGE draft)",
                t.nomerge),
        _gauge("agentium_tasks_blocked", "BLOCKED tasks: paused (resumable) or final", ["kind"],
               _one_label(blocked)),
        _gauge("agentium_model_tokens", "Tokens spent, by model and kind", ["model", "kind"],
               t.tokens.items()),
        _gauge("agentium_model_cost_usd", "Dollars spent, by model", ["model"],
               _one_label(t.dollars)),
        _gauge("agentium_model_calls", "Model calls, by model", ["model"], _one_label(t.calls)),
    ]  # fmt: skip


def queue_families(queues: Mapping[str, QueueFigures]) -> list[Metric]:
    depth = {name: float(q.depth) for name, q in queues.items()}
    age = {name: q.oldest_age_s or 0.0 for name, q in queues.items()}
    return [
        _gauge("agentium_queue_depth", "Entries waiting, by queue", ["queue"], _one_label(depth)),
        _gauge("agentium_queue_oldest_age_seconds", "Age of the oldest waiting entry (0: none)",
               ["queue"], _one_label(age)),
    ]  # fmt: skip
