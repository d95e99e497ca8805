"""End to end on each real repository of ``tests/corpus/repos/``, with the package index.

The repository is committed with a planted bug; the environment step sets it up as a
worker would (the detected setup command, with the network, in the stock sandbox whose
PATH has no ``python``); the real test command fails in the sandbox; a scripted worker
reverts the bug with the file tools and runs the tests; the reviewer and then the judge
get the real test command's result, its pass/fail counts included.

Marked ``index``: without the package index (PyPI) the tests skip and say why.
"""

from __future__ import annotations

import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.agents.conftest import (
    REPOS,
    git,
    local_git,
    make_sandbox,
    needs_bwrap,
    stock_sandbox_settings,
    task_context,
)
from tests.agents.test_runner_review import effect
from tests.fakes.anthropic import FakeAnthropic, text, tool_use
from tests.index import skip_without_index
from workers.agents.environment import Environment, EnvironmentStep, SetupRequest
from workers.agents.runner import AgentRunner
from workers.agents.settings import EnvironmentSettings
from workers.agents.testcmd import detect_test_command
from workers.controller.outcomes import WorkerDone
from workers.controller.phases import Role
from workers.engine.statesync import extract_safely
from workers.gitops.runner import Git

pytestmark = [pytest.mark.index, pytest.mark.slow, pytest.mark.timeout(1200), needs_bwrap]


@dataclass(frozen=True)
class Corpus:
    archive: str
    repo: str
    path: str  # the file with the planted bug
    good: str
    bad: str
    broken: str  # the summary line's counts with the bug
    fixed: str  # and without
    probe: str  # a command that shows the environment has what the repository needs


CORPUS = [
    Corpus(
        "iniconfig.tar.gz",
        "pytest-dev/iniconfig",
        "src/iniconfig/_parse.py",
        good='COMMENTCHARS = "#;"',
        bad='COMMENTCHARS = "#"',
        broken="4 failed, 38 passed",
        fixed="42 passed",
        probe="python -c 'import pytest; print(pytest.__name__)'",
    ),
    Corpus(
        "python-slugify.tar.gz",
        "un33k/python-slugify",
        "slugify/slugify.py",
        good="DUPLICATE_DASH_PATTERN.sub(DEFAULT_SEPARATOR, text).strip(DEFAULT_SEPARATOR)\n",
        bad="DUPLICATE_DASH_PATTERN.sub(DEFAULT_SEPARATOR, text)\n",
        broken="18 failed, 131 passed",
        fixed="140 passed",
        probe="python -c 'import text_unidecode; print(text_unidecode.__name__)'",
    ),
]
assert {c.archive for c in CORPUS} == {p.name for p in REPOS.glob("*.tar.gz")}, "one per repo"


@pytest.fixture(scope="module")
def index() -> None:
    skip_without_index()


def planted(corpus: Corpus, parent: Path) -> Path:
    """The repository unpacked and committed with its bug, as a task's base commit."""
    with tarfile.open(REPOS / corpus.archive) as archive:
        extract_safely(archive, parent)
    checkout = next(parent.iterdir())
    source = checkout / corpus.path
    text = source.read_text()
    assert text.count(corpus.good) == 1
    source.write_text(text.replace(corpus.good, corpus.bad))
    git(checkout, "init", "-q", "-b", "main")
    git(checkout, "add", "-A")
    git(checkout, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base")
    return checkout


@pytest.fixture(params=CORPUS, ids=[c.repo for c in CORPUS])
def corpus(request: pytest.FixtureRequest) -> Corpus:
    corpus: Corpus = request.param
    return corpus


@pytest.fixture
def set_up(index: None, corpus: Corpus, tmp_path: Path) -> Iterator[tuple[Path, Environment]]:
    checkout = planted(corpus, tmp_path / "repo")
    (tmp_path / "git-home").mkdir()
    step = EnvironmentStep(
        make_sandbox(stock_sandbox_settings()),
        Git(tmp_path / "git-home"),
        tmp_path / "data" / "envs",
        EnvironmentSettings(timeout_seconds=900),
    )
    base = git(checkout, "rev-parse", "HEAD").strip()
    request = SetupRequest(corpus.repo, checkout, base, None, True, f"{corpus.repo}#1")
    environment = step.ensure(request)
    assert environment.outcome.ok, environment.outcome.tail
    assert environment.outcome.source == "detected: python"
    yield checkout, environment


def test_the_environment_is_set_up_and_a_real_fix_reaches_reviewer_and_judge(
    corpus: Corpus,
    set_up: tuple[Path, Environment],
    fake: FakeAnthropic,
    runner: AgentRunner,
    tmp_path: Path,
) -> None:
    checkout, environment = set_up
    sandbox = environment.confine(runner.deps.sandbox, checkout)
    probe = sandbox.run(f"command -v python; {corpus.probe}", checkout)
    assert probe.exit_code == 0, probe.output
    assert probe.output.split()[0] == str(environment.venv / "bin" / "python")

    task = task_context(
        checkout, tmp_path / "state", environment=environment, plan="Revert the planted bug.",
        issue_title="A planted bug", issue_body=f"Something broke in {corpus.path}.",
    )  # fmt: skip
    before = runner.run_tests(task)
    assert f"failed (exit code 1): {corpus.broken}" in before, before

    command = detect_test_command(checkout)
    assert command is not None
    fake.push(
        tool_use("edit_file", {"path": corpus.path, "old_string": corpus.bad,
                               "new_string": corpus.good}),
        tool_use("run_command", {"command": command}),
        text("Reverted the planted bug; the tests pass."),
    )  # fmt: skip
    worker = effect(Role.WORKER, routing_key="IMPLEMENT")
    assert runner.run(worker, task, local_git(checkout)) == WorkerDone(
        text="Reverted the planted bug; the tests pass.", made_commits=True
    )
    ran = fake.requests[-1].json["messages"][-1]["content"][0]["content"]
    assert "exit code 0" in ran and corpus.fixed in ran

    fake.push(text("1. The fix is the right one."))
    runner.run(effect(Role.REVIEWER), task, local_git(checkout))
    review = fake.requests[-1].json["messages"][0]["content"][1]["text"]
    assert f"passed (exit code 0): {corpus.fixed}" in review
    assert "environment was set up" in review

    fake.push(text("AGENTIUM_EVAL: ADVANCE the tests pass"))
    judged = task_context(checkout, tmp_path / "state", environment=environment, review="1. Fine.")
    runner.run(effect(Role.JUDGE), judged, local_git(checkout))
    judge = fake.requests[-1].json["messages"][0]["content"][1]["text"]
    assert "## The repository's tests on this iteration" in judge
    assert f"passed (exit code 0): {corpus.fixed}" in judge
