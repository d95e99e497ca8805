"""Every instance of the shipped suite, in the environment the environment step sets up
from the package index (the detected setup, as a worker runs it): its base does not
resolve it (every FAIL_TO_PASS test fails, every PASS_TO_PASS test passes), its reference
fix does. So a scripted run with the reference fixes grades 100 % and one that changes
nothing 0 %.

Marked ``index``: without the package index the tests skip and say why.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.conftest import make_sandbox, needs_bwrap, stock_sandbox_settings
from tests.eval.conftest import commit_patch, made
from tests.eval.suite_files import SUITE
from tests.index import skip_without_index
from workers.agents.environment import EnvironmentStep, SetupRequest
from workers.agents.settings import EnvironmentSettings
from workers.eval.grade import Grader
from workers.eval.instance import Instance, load_suite

pytestmark = [pytest.mark.index, pytest.mark.slow, pytest.mark.timeout(1800), needs_bwrap]
INSTANCES = load_suite(SUITE).instances


@pytest.fixture(scope="module")
def index() -> None:
    skip_without_index()


@pytest.fixture(scope="module")
def envs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("envs")  # one environment per repository, shared


@pytest.mark.parametrize("instance", INSTANCES, ids=[i.instance_id for i in INSTANCES])
def test_the_base_fails_the_hidden_tests_and_the_reference_fix_passes_them(
    index: None, envs: Path, instance: Instance, tmp_path: Path
) -> None:
    root, tool = made(instance, tmp_path / "repo")
    sandbox = make_sandbox(stock_sandbox_settings())
    step = EnvironmentStep(sandbox, tool, envs, EnvironmentSettings(timeout_seconds=900))
    environment = step.ensure(
        SetupRequest(instance.repo, root, instance.base_commit, None, True, instance.instance_id)
    )
    assert environment.outcome.ok, environment.outcome.tail
    assert environment.outcome.source == "detected: python"
    grader = Grader(tool, lambda tree: environment.confine(sandbox, tree))

    base = grader.grade(instance, root, instance.base_commit, tmp_path / "base")
    assert not base.resolved and not base.error
    assert base.still_failing == list(instance.fail_to_pass), base.log_tail
    assert base.broken == [], base.log_tail

    head = commit_patch(root, tool, instance.patch, "reference fix")
    fixed = grader.grade(instance, root, head, tmp_path / "fixed")
    assert fixed.resolved, fixed.log_tail
