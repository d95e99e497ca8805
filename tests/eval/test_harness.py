"""``agentium eval`` end to end, offline: the embedded Redis and two real RQ workers, the
real controller, agents, sandbox and environment step, the fake Anthropic server answering
each instance from its scenario (a scripted model that makes the reference fix, or one that
only writes notes), and the hidden tests graded in the instance's environment.

Three instances of the shipped suite: the reference fix marked ready (resolved), notes
marked ready (not resolved: a "ready" that cannot be trusted), the reference fix after the
judge kept asking for more (resolved, NOMERGE).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.agents.conftest import git, needs_bwrap
from tests.eval.conftest import by_id
from tests.eval.support import HARNESS, PLAN, scripted_suite
from tests.fakes.anthropic import FakeAnthropic
from workers.eval import cli
from workers.eval.instance import Suite
from workers.eval.record import Results

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600), needs_bwrap]
ROOT = Path(__file__).parent.parent.parent


@pytest.fixture
def llm() -> FakeAnthropic:
    with FakeAnthropic() as server:
        yield server


def test_a_scripted_run_resolves_one_not_another_and_one_ends_nomerge(
    suite: Suite, llm: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite_file, router = scripted_suite(suite, llm, tmp_path)
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)  # no .env
    monkeypatch.delenv("REDIS_URL", raising=False)  # the embedded one, as `make run` does
    for name, value in {
        "ANTHROPIC_API_KEY": llm.api_key,
        "ANTHROPIC_BASE_URL": llm.base_url,
        "DATA_DIR": str(tmp_path / "data"),
        "PYTHONPATH": str(ROOT),  # the workers import the tests' harness
    }.items():
        monkeypatch.setenv(name, value)

    out, results_file = io.StringIO(), tmp_path / "results.json"
    argv = [str(suite_file), "--workers", "2", "--out", str(results_file)]
    assert cli.main(argv, out, harness=HARNESS) == 0, out.getvalue()
    assert router.mismatches() == [] and router.done

    results = Results.model_validate_json(results_file.read_text())
    fixed, notes, nomerge = results.records
    assert [r.instance_id for r in results.records] == [name for name, _, _ in PLAN]
    assert (fixed.resolved, fixed.pr, fixed.path) == (True, "ready", "COMPLEX")
    assert fixed.iterations == {"PLAN": 1, "IMPLEMENT": 1, "DOCS": 1}
    assert fixed.agent_calls == 10 and fixed.model_calls >= 10
    assert fixed.input_tokens + fixed.cache_read_tokens + fixed.cache_write_tokens > 0
    assert fixed.output_tokens > 0 and fixed.dollars > 0 and fixed.models
    assert fixed.environment.startswith("ok in ") and not fixed.error
    assert (notes.resolved, notes.pr) == (False, "ready")
    assert notes.still_failing == list(by_id(suite, "iniconfig-utf8-bom").fail_to_pass)
    assert notes.broken == []
    assert (nomerge.resolved, nomerge.pr, nomerge.path) == (True, "nomerge", "SIMPLE")
    assert nomerge.iterations == {"PLAN": 1, "IMPLEMENT": 2, "DOCS": 1}

    summary = results.summary
    assert (summary.resolved, summary.instances, summary.ready) == (2, 3, 2)
    assert summary.ready_resolved_rate == 0.5
    assert results.workers == 2 and results.models == fixed.models

    folder = Path(fixed.folder)
    assert (folder / "record.json").is_file()
    assert "Outcome: READY for review" in (folder / "run.log").read_text()
    source = next((folder / "source" / "repo").iterdir())
    made = git(source, "log", "--format=%s", f"HEAD..{fixed.branch}").splitlines()
    assert made == ["Docs iteration 1 for iniconfig-section-len",
                    "Implement iteration 1 for iniconfig-section-len"]  # fmt: skip
    assert json.loads((folder.parent / "results.json").read_text())["summary"]["resolved"] == 2
    assert "Listening on agentium-eval-" in (folder.parent / "workers.log").read_text()

    printed = out.getvalue()
    assert "[3/3]" in printed and "iniconfig-utf8-bom: not resolved, ready" in printed
    assert "Resolved: 2 of 3 (66.7%)" in printed
    assert 'Resolved among ready: 1 of 2 (50.0%): how far a "ready" can be trusted' in printed
