"""What a person reads: the table of a run, its summary, and two runs side by side."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from workers.eval.record import InstanceRecord, Results, Summary

COLUMNS = (
    "instance", "resolved", "PR", "path", "P/I/D", "calls", "tokens in/cached/out", "$",
    "wall s", "model s",
)  # fmt: skip
FATE_WORDS = {
    "ready": "ready",
    "nomerge": "NOMERGE",
    "blocked": "blocked",
    "nothing_to_do": "nothing to do",
    "error": "error",
}


def _rows(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    lines = []
    for row in (header, *rows):
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=True)]
        lines.append("  ".join(cells).rstrip())
    lines.insert(1, "  ".join("-" * width for width in widths))
    return lines


def _tokens(record: InstanceRecord) -> str:
    fresh = record.input_tokens + record.cache_write_tokens
    return f"{fresh:,}/{record.cache_read_tokens:,}/{record.output_tokens:,}"


def record_row(record: InstanceRecord) -> list[str]:
    iterations = "/".join(str(record.iterations.get(p, 0)) for p in ("PLAN", "IMPLEMENT", "DOCS"))
    return [
        record.instance_id,
        "yes" if record.resolved else "no",
        FATE_WORDS[record.pr],
        record.path or "-",
        iterations,
        str(record.agent_calls),
        _tokens(record),
        f"{record.dollars:.2f}",
        f"{record.wall_seconds:,.0f}",
        f"{record.model_seconds:,.0f}",
    ]


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def _money(value: float | None) -> str:
    return "-" if value is None else f"${value:,.2f}"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f} s"


def summary_lines(results: Results) -> list[str]:
    s = results.summary
    fates = ", ".join(f"{s.fates.get(f, 0)} {w}" for f, w in FATE_WORDS.items())
    lines = [
        f"Resolved: {s.resolved} of {s.instances} ({_percent(s.resolved_rate)})",
        f"PRs: {fates}",
        f"Resolved among ready: {s.resolved_among_ready} of {s.ready} "
        f'({_percent(s.ready_resolved_rate)}): how far a "ready" can be trusted',
        f"Cost: {_money(s.dollars)} in all, {_money(s.dollars_per_resolved)} per resolved "
        f"instance; {s.tokens:,} tokens",
        f"Time: {_seconds(s.wall_seconds)} of instance runs ({_seconds(s.model_seconds)} inside "
        f"agent runs), {_seconds(s.wall_seconds_per_resolved)} per resolved instance; the "
        f"suite took {_seconds(results.elapsed_seconds)} on {results.workers} worker(s)",
    ]
    errors = [r for r in results.records if r.error]
    lines += [f"  {r.instance_id}: {r.error}" for r in errors]
    return lines


def table(results: Results) -> str:
    rows = [record_row(record) for record in results.records]
    models = ", ".join(results.models) or "none called"
    head = [f"Suite {results.suite}, started {results.started}; models: {models}", ""]
    return "\n".join([*head, *_rows(COLUMNS, rows), "", *summary_lines(results)])


def _cell(record: InstanceRecord | None) -> str:
    if record is None:
        return "(absent)"
    word = "resolved" if record.resolved else "not resolved"
    return f"{word}, {FATE_WORDS[record.pr]}, {_money(record.dollars)}"


Figure = tuple[str, Callable[[Summary], float | None], Callable[[float | None], str]]
FIGURES: tuple[Figure, ...] = (
    ("resolved rate", lambda s: s.resolved_rate, _percent),
    ("resolved among ready", lambda s: s.ready_resolved_rate, _percent),
    ("dollars", lambda s: s.dollars, _money),
    ("dollars per resolved", lambda s: s.dollars_per_resolved, _money),
    ("seconds per resolved", lambda s: s.wall_seconds_per_resolved, _seconds),
)


def _difference(a: float | None, b: float | None, show: Callable[[float | None], str]) -> str:
    if a is None or b is None:
        return "-"
    delta = b - a
    if show is _percent:
        return f"{delta * 100:+.1f} pt"
    return ("+" if delta >= 0 else "-") + show(abs(delta))


def compare(a: Results, b: Results, names: tuple[str, str] = ("A", "B")) -> str:
    """Two runs side by side: per instance, then the summary figures and B - A."""
    by_a = {r.instance_id: r for r in a.records}
    by_b = {r.instance_id: r for r in b.records}
    ids = list(dict.fromkeys([*by_a, *by_b]))
    rows = [[i, _cell(by_a.get(i)), _cell(by_b.get(i))] for i in ids]
    figures = []
    for name, get, show in FIGURES:
        one, two = get(a.summary), get(b.summary)
        figures.append([name, show(one), show(two), _difference(one, two, show)])
    return "\n".join(
        [
            f"{names[0]}: {a.suite}, started {a.started}; models: {', '.join(a.models) or '-'}",
            f"{names[1]}: {b.suite}, started {b.started}; models: {', '.join(b.models) or '-'}",
            "",
            *_rows(("instance", names[0], names[1]), rows),
            "",
            *_rows(("figure", names[0], names[1], f"{names[1]} - {names[0]}"), figures),
        ]
    )
