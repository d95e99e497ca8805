"""The setup command detected from a repository's files, and the script it runs in."""

from __future__ import annotations

import json
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.agents.conftest import REPOS
from workers.agents.environment.detect import (
    PYTEST_CHECK,
    compose,
    configured,
    detect_setup,
    requirements_files,
    strip_json_comments,
)
from workers.agents.environment.outcome import NOTHING_DETECTED
from workers.agents.testcmd import detect_test_command
from workers.engine.statesync import extract_safely

PYPROJECT = '[project]\nname = "x"\n[project.optional-dependencies]\n{extras}\n'


def tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def parts(script: str) -> list[str]:
    """The commands of a composed script, in order."""
    return [line[2:].removesuffix("\n") for line in script.split("\n") if line.startswith("{ ")]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"pyproject.toml": PYPROJECT.format(extras='test = ["pytest"]\ndev = ["ruff"]')},
         "python -m pip install -e '.[test]'"),
        ({"pyproject.toml": PYPROJECT.format(extras='testing = ["pytest"]')},
         "python -m pip install -e '.[testing]'"),
        ({"pyproject.toml": PYPROJECT.format(extras='dev = ["pytest"]\ndocs = ["x"]')},
         "python -m pip install -e '.[dev]'"),
        ({"pyproject.toml": PYPROJECT.format(extras='docs = ["x"]')},
         "python -m pip install -e ."),
        ({"setup.py": "",
          "setup.cfg": "[metadata]\nname=x\n[options.extras_require]\ntests = pytest\n"},
         "python -m pip install -e '.[tests]'"),
        ({"setup.py": "", "requirements.txt": "attrs\n", "dev-requirements.txt": "pytest\n",
          "requirements-docs.txt": "sphinx\n"},
         "python -m pip install -e . -r requirements.txt -r dev-requirements.txt"),
        ({"requirements/test.txt": "pytest\n", "requirements/docs.txt": "sphinx\n"},
         "python -m pip install -r requirements/test.txt"),
    ],
)  # fmt: skip
def test_python_projects_install_themselves_and_their_test_requirements(
    tmp_path: Path, files: dict[str, str], expected: str
) -> None:
    recipe = detect_setup(tree(tmp_path, files), test_command=None)
    assert parts(recipe.script) == [expected]
    assert recipe.kinds == ("python",)
    assert recipe.source == "detected: python"


def test_pytest_is_installed_when_the_test_command_needs_it_and_nothing_brought_it(
    tmp_path: Path,
) -> None:
    files = tree(tmp_path, {"tests/test_x.py": "", "setup.py": ""})
    recipe = detect_setup(files, detect_test_command(files))
    assert parts(recipe.script) == [f"python -m pip install -e . && {PYTEST_CHECK}"]
    only_tests = detect_setup(tree(tmp_path / "t", {"tests/test_x.py": ""}), "python -m pytest")
    assert parts(only_tests.script) == [PYTEST_CHECK]


@pytest.mark.parametrize(
    ("files", "expected", "kinds"),
    [
        ({"package.json": "{}", "package-lock.json": "{}"}, ["npm ci"], ("node",)),
        ({"package.json": "{}"}, ["npm install"], ("node",)),
        ({"Cargo.toml": "[package]\n"}, ["cargo fetch"], ("rust",)),
        ({"go.mod": "module x\n"}, ["go mod download"], ("go",)),
        ({"requirements.txt": "x\n", "package.json": "{}", "go.mod": "module x\n"},
         ["python -m pip install -r requirements.txt", "npm install", "go mod download"],
         ("python", "node", "go")),
    ],
)  # fmt: skip
def test_other_ecosystems(
    tmp_path: Path, files: dict[str, str], expected: list[str], kinds: tuple[str, ...]
) -> None:
    recipe = detect_setup(tree(tmp_path, files), test_command=None)
    assert parts(recipe.script) == expected
    assert recipe.kinds == kinds


DEVCONTAINER = """{
  // a comment, and a URL that is not one: "http://example.com"
  "image": "mcr.microsoft.com/devcontainers/python:3.11", /* inline */
  "postCreateCommand": %s,
}
"""


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('"make setup"', "make setup"),
        ('["pip", "install", "-r", "my reqs.txt"]', "pip install -r 'my reqs.txt'"),
        ('{"a": "make deps", "b": ["echo", "hi"]}', "make deps && echo hi"),
    ],
)
def test_a_devcontainer_command_is_the_hint_when_nothing_else_applies(
    tmp_path: Path, command: str, expected: str
) -> None:
    files = tree(tmp_path, {".devcontainer/devcontainer.json": DEVCONTAINER % command})
    recipe = detect_setup(files, None)
    assert parts(recipe.script) == [expected]
    assert recipe.source == "detected: devcontainer"
    (tmp_path / "go.mod").write_text("module x\n")
    assert parts(detect_setup(tmp_path, None).script) == ["go mod download"]


def test_json_comments_are_removed_outside_strings_only() -> None:
    text = '{"url": "http://x//y", "a": "/* kept */", // gone\n "b": [1, 2,], /* gone */ }'
    assert json.loads(strip_json_comments(text)) == {
        "url": "http://x//y", "a": "/* kept */", "b": [1, 2]
    }  # fmt: skip


def test_nothing_to_set_up(tmp_path: Path) -> None:
    recipe = detect_setup(tree(tmp_path, {"README.md": "hi"}), None)
    assert (recipe.script, recipe.source, recipe.kinds) == ("", NOTHING_DETECTED, ())


def test_every_part_runs_and_a_failure_is_the_scripts_status(tmp_path: Path) -> None:
    script = compose([("a", "echo one; false"), ("b", "echo two"), ("c", "echo 'three'")])
    done = subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert [line for line in done.stdout.splitlines() if "agentium" not in line] == [
        "one", "two", "three"
    ]  # fmt: skip
    assert "agentium setup (b): echo two" in done.stdout
    fine = subprocess.run(["/bin/sh", "-c", compose([("a", "true")])], check=False)
    assert fine.returncode == 0


def test_requirements_files_are_found_by_name(tmp_path: Path) -> None:
    names = ["requirements.txt", "requirements-dev.txt", "dev.requirements.txt",
             "test_requirements.txt", "requirements_docs.txt", "notes.txt"]  # fmt: skip
    tree(tmp_path, dict.fromkeys(names, ""))
    assert requirements_files(tmp_path) == [
        "requirements.txt", "dev.requirements.txt", "requirements-dev.txt",
        "test_requirements.txt",
    ]  # fmt: skip


def unpacked(archive: str, parent: Path) -> Path:
    with tarfile.open(REPOS / archive) as opened:
        extract_safely(opened, parent)
    return next(parent.iterdir())


def test_the_corpus_repositories(tmp_path: Path) -> None:
    iniconfig = unpacked("iniconfig.tar.gz", tmp_path / "a")
    recipe = detect_setup(iniconfig, detect_test_command(iniconfig))
    assert parts(recipe.script) == [f"python -m pip install -e . && {PYTEST_CHECK}"]
    slugify = unpacked("python-slugify.tar.gz", tmp_path / "b")
    recipe = detect_setup(slugify, detect_test_command(slugify))
    assert parts(recipe.script) == [
        f"python -m pip install -e . -r dev.requirements.txt && {PYTEST_CHECK}"
    ]


def test_a_configured_command_runs_as_written(tmp_path: Path) -> None:
    recipe = configured("make deps", tree(tmp_path, {"setup.py": ""}))
    assert (recipe.script, recipe.source, recipe.kinds) == ("make deps", "configured", ("python",))
    assert configured("make deps", tmp_path / "none").kinds == ()
