"""The whole shipped suite through ``agentium eval``, offline, as ``make eval`` runs it
(tests/eval/scripted.py): the embedded Redis, two real RQ workers, the real controller,
agents, sandbox and environment step, the fake Anthropic server answering from scenarios.

One test, two runs sharing their environments (DATA_DIR/envs): a scripted model whose
workers write each instance's reference fix grades 100 %; one whose workers write notes
and no code grades 0 %. What the agents were shown along the way (each instance's
``agents-saw.md``) is checked where the harness is meant to help a model: the repository
map in the PLAN worker's prompt, the changed lines and the syntax check after an edit,
the test figures and every failing test's id (those with spaces, and those of failed
subtests) for the reviewer and the judge, no terminal escape sequences.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.agents.conftest import needs_bwrap
from tests.eval.scripted import fake_variables, plan_of, problems, run_scripted
from tests.eval.suite_files import SUITE
from tests.eval.transcript import NAME
from tests.fakes.anthropic import FakeAnthropic
from workers.eval.instance import load_suite

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900), needs_bwrap]
SUITE_IDS = [instance.instance_id for instance in load_suite(SUITE).instances]


def saw(folder: str) -> str:
    return (Path(folder) / NAME).read_text(encoding="utf-8")


def test_the_reference_fixes_grade_100_percent_and_no_change_0_percent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = load_suite(SUITE)
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)  # no .env
    monkeypatch.delenv("REDIS_URL", raising=False)
    runs = {}
    for unchanged in (False, True):
        with FakeAnthropic() as llm:
            for name, value in fake_variables(llm, tmp_path / "data").items():
                monkeypatch.setenv(name, value)
            folder = tmp_path / ("unchanged" if unchanged else "reference")
            folder.mkdir()
            out = io.StringIO()
            run = run_scripted(llm, plan_of(suite, unchanged), folder, 2, out)
        assert run.status == 0, out.getvalue()
        assert problems(run, unchanged) == [], out.getvalue()
        runs[unchanged] = (run, out.getvalue())

    fixed, printed = runs[False]
    assert fixed.results is not None
    assert [r.instance_id for r in fixed.results.records] == SUITE_IDS
    assert "Resolved: 8 of 8 (100.0%)" in printed
    assert "PRs: 8 ready, 0 NOMERGE, 0 blocked, 0 nothing to do, 0 error" in printed
    paths = {r.instance_id: r.path for r in fixed.results.records}
    assert paths["iniconfig-dict-roundtrip"] == paths["slugify-cli-lines"] == "COMPLEX"
    assert paths["slugify-cli-bad-regex"] == "SIMPLE"
    assert all(r.environment.startswith("ok in ") for r in fixed.results.records)

    notes, printed = runs[True]
    assert notes.results is not None
    assert "Resolved: 0 of 8 (0.0%)" in printed
    assert 'Resolved among ready: 0 of 8 (0.0%): how far a "ready" can be trusted' in printed
    for record, instance in zip(notes.results.records, suite.instances, strict=True):
        assert record.still_failing == list(instance.fail_to_pass)
        assert record.broken == []

    # What the agents were shown.
    first = saw(fixed.results.records[1].folder)  # iniconfig-inline-comments
    plan_call = first[: first.index("## Call 2:")]
    assert plan_call.startswith("## Call 1: WORKER, a new conversation")
    assert "# Phase PLAN" in plan_call
    assert "## The repository at the start of the task" in plan_call
    assert "src/iniconfig/__init__.py\n  class SectionWrapper:" in plan_call
    assert "wrote src/iniconfig/_parse.py (" in first
    assert "now read (with the lines around them):" in first
    assert "Python syntax check: the file parses." in first

    planted = saw(notes.results.records[3].folder)  # iniconfig-semicolon-comments
    judge = planted[planted.index("## Call 6: JUDGE") :]
    for shown in (planted, judge):
        assert "`PYTHONPATH=src python -m pytest -q -p no:cacheprovider`: failed (exit code 1): " \
            "4 failed, 38 passed" in shown  # fmt: skip
    for test in ("test_tokenize[comment2]", "test_tokenize[comment2 on section]",
                 "test_iscommentline_true[;qwe]", "test_iscommentline_true[ ;qwe]"):  # fmt: skip
        assert f"testing/test_iniconfig.py::{test}\n" in planted
    assert "FAIL_TO_PASS" not in planted and "test_semicolon_comments_in_a_config" not in planted
    edges = saw(notes.results.records[7].folder)  # slugify-modern-edge-dashes
    assert "failed (exit code 1): 18 failed, 131 passed, 5 skipped" in edges
    assert "tests/test_release.py::ReleaseRegressionTests::test_empty_and_whitespace\n" in edges
    for record in [*fixed.results.records, *notes.results.records]:
        assert "\x1b" not in saw(record.folder)  # python-slugify's pytest forces colour
