"""What commands inside a task's environment get, per ecosystem; Node for real (offline, a
local dependency) where npm is installed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.agents.conftest import git, make_sandbox, needs_bwrap, stock_sandbox_settings
from workers.agents.environment import (
    Environment,
    EnvironmentOutcome,
    EnvironmentStep,
    SetupRequest,
)
from workers.agents.settings import EnvironmentSettings
from workers.gitops.runner import Git

PATH = "/usr/local/bin:/usr/bin:/bin"


def outcome(*kinds: str) -> EnvironmentOutcome:
    return EnvironmentOutcome(ok=True, command="x", source="detected", kinds=kinds)


def test_python_node_rust_and_go(tmp_path: Path) -> None:
    root, checkout = tmp_path / "env", tmp_path / "checkout"
    for folder in ("venv/bin", "src/node_modules/.bin", "cargo", "go", "checkout/src"):
        (tmp_path / ("" if folder.startswith("checkout") else "env") / folder).mkdir(parents=True)
    found = Environment(root, outcome("python", "node")).variables(checkout, PATH)
    assert found["PATH"] == f"{root}/venv/bin:{root}/src/node_modules/.bin:{PATH}"
    assert found["VIRTUAL_ENV"] == str(root / "venv")
    assert found["PYTHONPATH"] == str(checkout / "src")  # a src layout
    assert found["NODE_PATH"] == str(root / "src" / "node_modules")
    assert (found["CARGO_HOME"], found["CARGO_NET_OFFLINE"]) == (str(root / "cargo"), "true")
    assert (found["GOMODCACHE"], found["GOPROXY"]) == (str(root / "go" / "pkg" / "mod"), "off")
    (checkout / "src").rmdir()
    assert Environment(root, outcome("python")).variables(checkout, PATH)["PYTHONPATH"] == str(
        checkout
    )
    assert "PYTHONPATH" not in Environment(root, outcome("node")).variables(checkout, PATH)


def test_nothing_there_changes_nothing_but_path(tmp_path: Path) -> None:
    found = Environment(tmp_path / "none", outcome()).variables(tmp_path, PATH)
    assert found == {"PATH": PATH}


@needs_bwrap
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_a_node_repository_gets_its_modules_without_network(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "local-dep").mkdir(parents=True)
    (repo / "local-dep" / "package.json").write_text(
        json.dumps({"name": "local-dep", "version": "1.0.0", "main": "index.js"})
    )
    (repo / "local-dep" / "index.js").write_text("module.exports = () => 'from local-dep';\n")
    script = "node -e \"console.log(require('local-dep')())\""
    (repo / "package.json").write_text(
        json.dumps({"name": "app", "version": "1.0.0", "scripts": {"test": script},
                    "dependencies": {"local-dep": "file:./local-dep"}})
    )  # fmt: skip
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base")
    (tmp_path / "git-home").mkdir()
    sandbox = make_sandbox(stock_sandbox_settings())
    step = EnvironmentStep(
        sandbox, Git(tmp_path / "git-home"), tmp_path / "envs", EnvironmentSettings()
    )
    base = git(repo, "rev-parse", "HEAD").strip()
    environment = step.ensure(SetupRequest("o/app", repo, base, None, False, "o/app#1"))
    assert environment.outcome.ok, environment.outcome.tail
    assert (environment.outcome.source, environment.outcome.command) == (
        "detected: node",
        "npm install",
    )
    result = environment.confine(sandbox, repo).run(f"npm test --silent; {script}", repo)
    assert result.output.split() == ["from", "local-dep"] * 2, result.output
    assert not (repo / "node_modules").exists()  # the checkout stays as the agents left it
