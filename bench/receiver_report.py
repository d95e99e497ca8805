"""What `make bench` prints for the receiver: rates, ratios, latencies, lost and duplicated."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.search import TARGET_P99_MS, kept_up, sustained

if TYPE_CHECKING:
    from bench.receiver import Options

TARGET_RATIO = 0.6

Result = dict[str, Any]


@dataclass
class Summary:
    bare: list[Result]  # closed loop, one per round
    web: list[Result]  # closed loop, one per round
    fixed: list[Result]  # open loop at the --rates
    searched: list[Result]  # open loop, the receiver's search for its sustained rate
    bare_searched: list[Result]  # open loop, the bare app's search, alike
    dispatcher_cpu_s: float = 0.0  # the dispatcher process's CPU time, the whole bench

    def cpu_us(self, runs: list[Result]) -> float:
        return statistics.median(r["cpu_us_per_answer"] for r in runs)

    def dispatcher_us(self) -> float:
        """The dispatcher's CPU time per accepted delivery, over the whole bench."""
        accepted = sum(r["accepted"] for r in self.checked())
        return self.dispatcher_cpu_s * 1e6 / max(1, accepted)

    def bare_rate(self) -> float:
        return median_rate(self.bare)

    def web_rate(self) -> float:
        return median_rate(self.web)

    def sustained(self) -> float:
        kept = [r["offered_rate"] for r in [*self.fixed, *self.searched] if sustained(r)]
        return max(kept, default=0.0)

    def bare_sustained(self) -> float:
        return max((r["offered_rate"] for r in self.bare_searched if kept_up(r)), default=0.0)

    def ratio(self) -> float:
        """The receiver's sustained rate as a fraction of the bare app's, both searched
        alike (0 when the bare app kept up with no rate)."""
        bare = self.bare_sustained()
        return self.sustained() / bare if bare else 0.0

    def checked(self) -> list[Result]:
        return [*self.web, *self.fixed, *self.searched]

    def lost(self) -> int:
        return sum(r["lost"] for r in self.checked())

    def duplicated(self) -> int:
        return sum(r["duplicates_enqueued"] for r in self.checked())


def median_rate(runs: list[Result]) -> float:
    """The median of the runs' achieved rates (the closed-loop rate of a server)."""
    return statistics.median(r["achieved_rate"] for r in runs)


def machine() -> str:
    model = "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.partition(":")[2].strip()
                break
    return f"{os.cpu_count()} CPUs ({model}), Python {platform.python_version()}"


def _failures(result: Result) -> int:
    return int(sum(result["rejected"].values()) + sum(result["errors"].values()))


Column = tuple[str, Callable[[Result], str]]
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
)


_STORED = {"accepted", "dup 202", "enqueued", "dup enq", "lost"}  # the bare app stores nothing
BARE_COLUMNS = tuple(column for column in COLUMNS if column[0] not in _STORED)


def table(results: Sequence[Result], columns: Sequence[Column] = COLUMNS) -> str:
    rows = [[name for name, _ in columns]]
    rows += [[cell(result) for _, cell in columns] for result in results]
    widths = [max(len(row[i]) for row in rows) for i in range(len(columns))]
    return "\n".join(
        "  " + "  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in rows
    )


def closed_lines(summary: Summary) -> list[str]:
    bare, web = summary.bare_rate(), summary.web_rate()

    def line(name: str, results: list[Result], median: float) -> str:
        rates = " / ".join(f"{r['achieved_rate']:,.0f}" for r in results)
        last = results[-1]["latency_ms"]
        return (
            f"  {name}: {rates} -> median {median:,.0f}/s "
            f"(last round p50 {last['p50']:.2f} ms, p99 {last['p99']:.2f} ms)"
        )

    bare_us, web_us = summary.cpu_us(summary.bare), summary.cpu_us(summary.web)
    return [
        line("bare Starlette app   ", summary.bare, bare),
        line("receiver             ", summary.web, web),
        f"  receiver / bare app: {web / bare:.2f} by rate; by CPU time per answer of the "
        f"server process, {bare_us:.0f} us / {web_us:.0f} us = {bare_us / web_us:.2f}",
        f"  (the dispatcher process, on the other CPU: {summary.dispatcher_us():.0f} us per "
        "accepted delivery)",
    ]


def sustained_lines(summary: Summary) -> list[str]:
    rate, bare, closed = summary.sustained(), summary.bare_sustained(), summary.bare_rate()
    return [
        f"sustained (p99 < {TARGET_P99_MS:g} ms, no error; the receiver also nothing lost): "
        f"receiver {rate:,.0f}/s, bare app {bare:,.0f}/s = {summary.ratio():.2f} of the "
        "bare app's",
        f"  (the receiver's sustained rate is {rate / closed:.2f} of the bare app's closed-loop "
        f"rate, {closed:,.0f}/s, which the bare app answers with no bound on latency)",
    ]


def verdict(summary: Summary) -> str:
    ratio = summary.ratio()
    problems = [f"p99 {r['latency_ms']['p99']:.1f} ms at {r['offered_rate']:g}/s"
                for r in summary.fixed if r["latency_ms"]["p99"] >= TARGET_P99_MS]  # fmt: skip
    problems += [f"{n} {what}" for what, n in
                 (("lost", summary.lost()), ("duplicated", summary.duplicated())) if n]  # fmt: skip
    if ratio < TARGET_RATIO:
        problems.append(f"sustained rate {ratio:.2f} of the bare app's (target {TARGET_RATIO})")
    head = "PASS" if not problems else "FAIL"
    return f"verdict: {head}" + (f": {'; '.join(problems)}" if problems else "")


def report(
    options: Options,
    summary: Summary,
    redis_version: str,
    pinning: str,
    web_log: tuple[Path, int],
) -> None:
    if options.json:
        print(json.dumps({"machine": machine(), "redis": redis_version, **asdict(summary)}))
        return
    print(
        f"receiver benchmark: {machine()}, Redis {redis_version}; {options.payload_kb:g} KB "
        f"signed issues.labeled, {options.duplicates:.0%} redeliveries; {pinning}"
    )
    print(f"closed loop, {options.connections} keep-alive connections, "
          f"{options.duration:g} s per run, alternating:")  # fmt: skip
    print("\n".join(closed_lines(summary)))
    print(f"open loop, {options.open_connections} connections, latency from the scheduled send:")
    print("  receiver:")
    print(table([*summary.fixed, *summary.searched]))
    print("  bare app (stores nothing: no Redis columns):")
    print(table(summary.bare_searched, BARE_COLUMNS))
    print("\n".join(sustained_lines(summary)))
    print(f"lost: {summary.lost()}, duplicated: {summary.duplicated()} (every receiver run)")
    print(f"  web process log: {web_log[0]} ({web_log[1]} error lines in the bench's logs)")
    print(verdict(summary))
