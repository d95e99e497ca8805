"""Fixtures of the harness's tests: the shipped suite, instance repositories made as the
harness makes them, and an environment for iniconfig set up without the package index
(pytest from this interpreter, tests/interpreter.py), in the stock sandbox."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.conftest import git, make_sandbox, needs_bwrap, stock_sandbox_settings
from tests.eval.suite_files import SUITE
from tests.interpreter import offline_setup_command
from workers.agents.environment import Environment, EnvironmentStep, SetupRequest
from workers.agents.sandbox import Sandbox
from workers.agents.settings import EnvironmentSettings
from workers.eval.grade import Grade, Grader
from workers.eval.instance import Instance, Suite, load_suite
from workers.eval.source import apply_patch, materialise
from workers.gitops.runner import Git

AUTHOR = ("-c", "user.name=t", "-c", "user.email=t@example.com")


@pytest.fixture(scope="session")
def suite() -> Suite:
    return load_suite(SUITE)


def by_id(suite: Suite, instance_id: str) -> Instance:
    return next(i for i in suite.instances if i.instance_id == instance_id)


def made(instance: Instance, parent: Path) -> tuple[Path, Git]:
    """The instance's repository at its base commit, as the harness makes it."""
    (parent / "home").mkdir(parents=True, exist_ok=True)
    tool = Git(parent / "home")
    return materialise(instance, parent / "source", tool), tool


def commit_patch(root: Path, tool: Git, patch: str, message: str = "change") -> str:
    """``patch`` committed on top of HEAD (as an agent's commit would be); the new HEAD."""
    apply_patch(root, tool, patch, root.parent / f"{message.replace(' ', '-')}.patch")
    git(root, *AUTHOR, "commit", "-qam", message)
    return git(root, "rev-parse", "HEAD").strip()


def commit_edit(root: Path, path: str, old: str, new: str, message: str = "edit") -> str:
    target = root / path
    text = target.read_text()
    assert text.count(old) == 1, old
    target.write_text(text.replace(old, new))
    git(root, *AUTHOR, "commit", "-qam", message)
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="session")
def sandbox() -> Sandbox:
    return make_sandbox(stock_sandbox_settings())


def offline_environment(
    instance: Instance, sandbox: Sandbox, parent: Path, *, plugins: bool = True
) -> Environment:
    """The environment step's environment for ``instance``'s repository, offline."""
    root, tool = made(instance, parent)
    step = EnvironmentStep(sandbox, tool, parent / "envs", EnvironmentSettings(timeout_seconds=120))
    command = offline_setup_command(plugins=plugins)
    request = SetupRequest(instance.repo, root, instance.base_commit, command, False, "eval#1")
    environment = step.ensure(request)
    assert environment.outcome.ok, environment.outcome.tail
    return environment


@pytest.fixture(scope="session")
def iniconfig_environment(
    suite: Suite, sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> Environment:
    """The environment for the iniconfig instances, offline."""
    parent = tmp_path_factory.mktemp("iniconfig-environment")
    return offline_environment(by_id(suite, "iniconfig-section-len"), sandbox, parent)


@pytest.fixture(scope="session")
def slugify_environment(
    suite: Suite, sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> Environment:
    """The environment for the python-slugify instances, offline (text-unidecode from the
    dev dependencies; none of this interpreter's pytest plugins: its settings make
    warnings errors)."""
    parent = tmp_path_factory.mktemp("slugify-environment")
    instance = by_id(suite, "slugify-cli-bad-regex")
    return offline_environment(instance, sandbox, parent, plugins=False)


GradeAt = Callable[[Instance, Path, str], Grade]


def grader_in(environment: Environment, sandbox: Sandbox, tmp_path: Path) -> GradeAt:
    """Grade ``head`` of an instance's repository in ``environment``, as the harness does."""

    def grade(instance: Instance, root: Path, head: str) -> Grade:
        workdir = tmp_path / f"grade-{head[:8]}"
        grader = Grader(Git(tmp_path / "home"), lambda t: environment.confine(sandbox, t))
        return grader.grade(instance, root, head, workdir)

    (tmp_path / "home").mkdir(exist_ok=True)
    return grade


@pytest.fixture
def grade_at(iniconfig_environment: Environment, sandbox: Sandbox, tmp_path: Path) -> GradeAt:
    return grader_in(iniconfig_environment, sandbox, tmp_path)


@pytest.fixture
def grade_slugify(slugify_environment: Environment, sandbox: Sandbox, tmp_path: Path) -> GradeAt:
    return grader_in(slugify_environment, sandbox, tmp_path)


__all__ = ["needs_bwrap"]
