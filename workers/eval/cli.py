"""``agentium eval``: run a suite, or compare two runs.

    agentium eval SUITE.jsonl [--workers N] [--routing FILE] [--out results.json]
                              [--only ID ...] [--instance-timeout S] [--keep-runs N]
    agentium eval compare A.json B.json

A run needs what ``agentium local`` needs (``ANTHROPIC_API_KEY``, or a compatible
``ANTHROPIC_BASE_URL``; a working bubblewrap) and writes everything under
``DATA_DIR/eval/<suite>-<time>/``: one folder per instance and ``results.json`` (also
written to ``--out``); of the suite's earlier runs the ``--keep-runs`` newest (5) stay.
Exit status: 0 every instance ran (resolved or not), 1 the harness could not run some
instance (its record says why), 2 the run could not start.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import yaml
from pydantic import ValidationError

from config.settings import Settings, SettingsError
from workers.agents.sandbox import SandboxUnavailable
from workers.controller.errors import ConfigError
from workers.controller.routing import parse_routing
from workers.defaults import load_default_routing
from workers.eval.instance import Suite, SuiteError, load_suite
from workers.eval.pool import PoolRequest, run_pool
from workers.eval.progress import ProgressBar
from workers.eval.record import Results, summarise
from workers.eval.report import compare, table
from workers.offline.local import api_settings
from workers.runtime import require_sandbox

DEFAULT_KEEP_RUNS = 5
DEFAULT_TIMEOUT_S = 18_000.0  # a task's default time budget (4 h) plus setup and grading
MAX_ROUTING_BYTES = 64 << 10


class EvalError(Exception):
    """The run cannot start; the message says why."""


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentium eval",
        description="Run the bot's loop on every instance of a suite and grade it with "
        "hidden tests (or: agentium eval compare A.json B.json).",
    )
    parser.add_argument("suite", type=Path, help="a SWE-bench-style JSONL file")
    parser.add_argument("--workers", type=int, default=2, help="instances at once (1..32)")
    parser.add_argument("--routing", type=Path, default=None, help="routing.yml-style overrides")
    parser.add_argument("--out", type=Path, default=None, help="where to write results.json")
    parser.add_argument("--only", nargs="+", default=[], metavar="ID", help="these instances")
    parser.add_argument("--instance-timeout", type=float, default=DEFAULT_TIMEOUT_S)
    parser.add_argument(
        "--keep-runs",
        type=int,
        default=DEFAULT_KEEP_RUNS,
        help="earlier runs of this suite kept under DATA_DIR/eval (older ones are removed)",
    )
    return parser


def read_routing(path: Path | None) -> dict[str, Any] | None:
    """The ``--routing`` file's mapping, checked against the shipped routing."""
    if path is None:
        return None
    try:
        if path.stat().st_size > MAX_ROUTING_BYTES:
            raise EvalError(f"{path}: larger than {MAX_ROUTING_BYTES:,} bytes")
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise EvalError(f"cannot read the routing file {path}: {error}") from None
    if not isinstance(data, dict):
        raise EvalError(f"{path}: expected a mapping with a `routing:` key")
    try:
        parse_routing(data, base=load_default_routing())
    except ConfigError as error:
        raise EvalError(f"{path}: {error}") from None
    return data


def run_folder(settings: Settings, suite: Suite, keep: int = DEFAULT_KEEP_RUNS) -> Path:
    """A new folder for this run; of the suite's earlier runs only the `keep` newest stay
    (each holds a checkout per instance: without this they pile up run after run)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    runs = settings.data_dir.expanduser().resolve() / "eval"
    for old in earlier_runs(runs, suite.path.stem)[keep:]:
        shutil.rmtree(old, ignore_errors=True)
    folder = runs / f"{suite.path.stem}-{stamp}"
    folder.mkdir(parents=True)
    return folder


def earlier_runs(runs: Path, stem: str) -> list[Path]:
    """The suite's run folders under `runs`, newest first (their names end in the time)."""
    if not runs.is_dir():
        return []
    pattern = re.compile(re.escape(stem) + r"-\d{8}T\d{12}")
    found = [p for p in runs.iterdir() if p.is_dir() and pattern.fullmatch(p.name)]
    return sorted(found, key=lambda path: path.name, reverse=True)


def evaluate(
    args: argparse.Namespace, settings: Settings, out: TextIO, harness: str | None = None
) -> Results:
    suite = load_suite(args.suite).only(args.only)
    routing = read_routing(args.routing)
    if not 1 <= args.workers <= 32:
        raise EvalError("--workers: between 1 and 32")
    if args.keep_runs < 0:
        raise EvalError("--keep-runs: 0 or more")
    folder = run_folder(settings, suite, args.keep_runs)
    request = PoolRequest(
        suite.instances, folder, args.workers, args.instance_timeout, routing, harness
    )
    print(
        f"agentium eval: {len(suite.instances)} instance(s) of {suite.path} on "
        f"{args.workers} worker(s); everything in {folder}",
        file=out,
        flush=True,
    )
    started, clock = datetime.now(UTC), time.monotonic()
    bar = ProgressBar(out, len(suite.instances))
    try:
        records = run_pool(settings, request, bar)
    finally:
        bar.close()
    results = Results(
        suite=str(suite.path),
        started=started.isoformat(timespec="seconds"),
        elapsed_seconds=round(time.monotonic() - clock, 1),
        workers=args.workers,
        routing=str(args.routing or ""),
        models=sorted({model for record in records for model in record.models}),
        records=records,
        summary=summarise(records),
    )
    text = results.model_dump_json(indent=2)
    (folder / "results.json").write_text(text, encoding="utf-8")
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
    return results


def load_results(path: Path) -> Results:
    try:
        return Results.model_validate_json(path.read_bytes())
    except (OSError, ValidationError) as error:
        raise EvalError(f"{path} is not an `agentium eval` results file: {error}") from None


def compare_main(argv: Sequence[str], out: TextIO) -> int:
    parser = argparse.ArgumentParser(prog="agentium eval compare")
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    args = parser.parse_args(list(argv))
    try:
        a, b = load_results(args.a), load_results(args.b)
    except EvalError as error:
        print(f"agentium eval: {error}", file=sys.stderr)
        return 2
    print(compare(a, b, (args.a.name, args.b.name)), file=out)
    return 0


def main(argv: Sequence[str], out: TextIO = sys.stdout, harness: str | None = None) -> int:
    if argv and argv[0] == "compare":
        return compare_main(argv[1:], out)
    args = parser().parse_args(list(argv))
    try:
        settings = api_settings()
        require_sandbox(settings)
        results = evaluate(args, settings, out, harness)
    except (EvalError, SuiteError, SettingsError, SandboxUnavailable) as error:
        print(f"agentium eval: {error}", file=sys.stderr)
        return 2
    print("", table(results), file=out, sep="\n")
    return 1 if any(record.error for record in results.records) else 0
