"""``make eval``: the whole shipped suite through ``agentium eval``, offline, with a scripted
model in place of Anthropic's.

    .venv/bin/python -m tests.eval.scripted [--unchanged] [--workers N] [--out FILE]
                                            [--only ID ...] [--data DIR]

Everything but the model is real: the embedded Redis, the RQ workers, the controller, the
agents' prompts and tools, the sandbox, the environment step (set up without the network
from this virtual environment, tests/interpreter.py) and the grading by hidden tests. The
fake Anthropic server (tests/fakes/anthropic.py) answers each instance from a scenario
(SIMPLE: tests/scenarios/simple-ready.yml; COMPLEX: issue-42-complex.yml) whose first
IMPLEMENT worker call writes the instance's reference fix (kept beside the suite, never in
a prompt): every instance is resolved, 100 %. ``--unchanged``: the workers write notes
files and no code: nothing is resolved, 0 %. Either way the run checks it got what it
expects (exit status 1 otherwise): the figures test the harness, not a model.

Each instance's folder (under ``DATA_DIR/eval/``, DATA_DIR being ``--data``) also gets
``agents-saw.md``: every prompt the agents were given (tests/eval/transcript.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import yaml

from tests.eval.suite_files import INSTANCES, SUITE
from tests.eval.support import HARNESS, Plan, scripted_suite
from tests.eval.transcript import write_transcripts
from tests.fakes.anthropic import FakeAnthropic
from workers.eval import cli
from workers.eval.instance import Suite, load_suite
from workers.eval.record import Results

ROOT = Path(__file__).parent.parent.parent
SCENARIO_OF_KIND = {"SIMPLE": "simple-ready.yml", "COMPLEX": "issue-42-complex.yml"}


def kind_of(instance_id: str) -> str:
    meta = yaml.safe_load((INSTANCES / instance_id / "meta.yml").read_text(encoding="utf-8"))
    return str(meta["kind"])


def plan_of(suite: Suite, unchanged: bool) -> Plan:
    """Every instance: the reference fix ("fix") or notes only, on its kind's scenario."""
    what = "notes" if unchanged else "fix"
    return [(i.instance_id, what, SCENARIO_OF_KIND[kind_of(i.instance_id)])
            for i in suite.instances]  # fmt: skip


def fake_variables(llm: FakeAnthropic, data: Path) -> dict[str, str]:
    """The environment of a scripted run: the fake server as Anthropic's API, and the
    tests importable by the workers (they build their harness from tests.eval.support)."""
    return {
        "ANTHROPIC_API_KEY": llm.api_key,
        "ANTHROPIC_BASE_URL": llm.base_url,
        "DATA_DIR": str(data),
        "PYTHONPATH": str(ROOT),
    }


@dataclass
class ScriptedRun:
    status: int  # agentium eval's exit status
    results: Results | None
    mismatches: list[str] = field(default_factory=list)  # where the agents left the script


def run_scripted(
    llm: FakeAnthropic, plan: Plan, folder: Path, workers: int, out: TextIO
) -> ScriptedRun:
    """``agentium eval`` on the plan's instances (the suite file and the results in
    ``folder``). The caller has set ``fake_variables`` (and no ``REDIS_URL``) in this
    process's environment."""
    suite_file, router = scripted_suite(load_suite(SUITE), llm, folder, plan)
    results_file = folder / "results-scripted.json"
    argv = [str(suite_file), "--workers", str(workers), "--out", str(results_file)]
    status = cli.main(argv, out, harness=HARNESS)
    if not results_file.is_file():
        return ScriptedRun(status, None, router.mismatches())
    results = Results.model_validate_json(results_file.read_text(encoding="utf-8"))
    folders = {number: Path(r.folder) for number, r in enumerate(results.records, start=1)}
    write_transcripts(llm.requests, folders)
    return ScriptedRun(status, results, router.mismatches())


def problems(run: ScriptedRun, unchanged: bool) -> list[str]:
    """What differs from what the script makes: every instance resolved (none with
    ``unchanged``), every PR ready, the agents on their script."""
    if run.results is None:
        return [f"agentium eval wrote no results (exit status {run.status})"]
    found = [f"{r.instance_id}: {r.error}" for r in run.results.records if r.error]
    for record in run.results.records:
        if record.resolved == unchanged:
            found.append(f"{record.instance_id}: {'' if unchanged else 'not '}resolved")
        if record.pr != "ready":
            found.append(f"{record.instance_id}: the PR would be {record.pr}, not ready")
    return found + run.mismatches


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tests.eval.scripted", description=__doc__)
    parser.add_argument("--unchanged", action="store_true", help="workers change no code")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="a copy of results.json")
    parser.add_argument("--only", nargs="+", default=[], metavar="ID")
    parser.add_argument("--data", type=Path, default=ROOT / ".data" / "eval-scripted")
    return parser


def report(run: ScriptedRun, unchanged: bool, out: TextIO) -> int:
    found = problems(run, unchanged)
    model = "notes only" if unchanged else "the reference fixes"
    expected = "none resolved (0 %)" if unchanged else "every instance resolved (100 %)"
    print(f"\nScripted model: {model}; expected {expected}: {'NOT MET' if found else 'met'}.",
          *[f"  {problem}" for problem in found], file=out, sep="\n")  # fmt: skip
    if run.results is not None and run.results.records:
        where = Path(run.results.records[0].folder).parent
        print(f"What the agents saw: {where}/<instance>/agents-saw.md", file=out)
    return 1 if found else 0


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    args = parser().parse_args(argv)
    plan = plan_of(load_suite(SUITE).only(args.only), args.unchanged)
    data, copy = args.data.resolve(), args.out.resolve() if args.out else None
    data.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory(prefix="agentium-eval-scripted-") as cwd,
        FakeAnthropic() as llm,
    ):
        os.environ.update(fake_variables(llm, data))
        os.environ.pop("REDIS_URL", None)  # the embedded Redis, as `make run` does
        os.chdir(cwd)  # no .env of the user's
        run = run_scripted(llm, plan, data, args.workers, out)
    if copy is not None and run.results is not None:
        copy.write_text(run.results.model_dump_json(indent=2), encoding="utf-8")
    return report(run, args.unchanged, out)


if __name__ == "__main__":
    sys.exit(main())
