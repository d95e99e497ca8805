"""Fixtures of the local mode's tests: a real repository, an issue file, a scripted model."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agents.conftest import git, make_checkout
from tests.e2e.environments import OFFLINE_SETTINGS, share_environments
from tests.e2e.model import ScriptedModel
from tests.fakes.anthropic import FakeAnthropic

SCENARIOS = Path(__file__).parent.parent / "scenarios"
ISSUE = "# Support `in` on sections\n\nSectionWrapper should support `'name' in section`.\n"
BRANCH = "agentium/local-support-in-on-sections"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """iniconfig, with settings that let the environment step run without the index."""
    checkout = make_checkout(tmp_path / "repos")
    (checkout / ".github" / "agentium.yml").write_text(OFFLINE_SETTINGS)
    git(checkout, "add", "-A")
    git(
        checkout, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "settings"
    )
    return checkout


@pytest.fixture
def issue_file(tmp_path: Path) -> Path:
    path = tmp_path / "ISSUE.md"
    path.write_text(ISSUE, encoding="utf-8")
    return path


@pytest.fixture
def llm() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


def script(llm: FakeAnthropic, scenario: str) -> ScriptedModel:
    model = ScriptedModel(SCENARIOS / scenario)
    llm.push(*[model] * 200)
    return model


@pytest.fixture
def env(tmp_path: Path, llm: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The settings of an in-process run (no .env: the working directory is empty)."""
    values = {
        "ANTHROPIC_API_KEY": llm.api_key,
        "ANTHROPIC_BASE_URL": llm.base_url,
        "DATA_DIR": str(tmp_path / "data"),
    }
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    share_environments(tmp_path / "data")
    monkeypatch.chdir(workdir)
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return {**{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}, **values}


def branches(repo: Path) -> dict[str, str]:
    listed = git(repo, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads")
    return dict(line.split(" ", 1) for line in listed.splitlines())


def commits(repo: Path, base: str, branch: str) -> list[str]:
    return git(repo, "log", "--format=%s", f"{base}..{branch}").splitlines()
