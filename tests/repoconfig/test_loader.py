"""Loading `.github/agentium.yml` through githubkit from the fake GitHub's contents API."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from githubkit.exception import RequestFailed

from tests.fakes.github import FakeGitHub
from tests.fakes.github_fixtures import INSTALLATION
from workers.github.client import GitHubClient, GitHubClients
from workers.repoconfig import (
    CONFIG_PATH,
    EffectiveConfig,
    RepoConfigDefaults,
    RepoConfigError,
    load_repo_config,
)

CONTENTS = "/repos/{owner}/{repo}/contents/{path:path}"
REPO = "octo/configured"


@pytest.fixture
def gh(clients: GitHubClients) -> GitHubClient:
    return clients.installation(INSTALLATION)


def commit_file(
    bare: Path, tmp_path: Path, branch: str, raw: bytes, *, symlink: bool = False
) -> None:
    """Push ``raw`` as the settings file to ``branch`` (``add_repo`` only writes text).

    With ``symlink`` the file is a symbolic link whose target is ``raw``.
    """
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    env |= {"GIT_AUTHOR_NAME": "Octo", "GIT_AUTHOR_EMAIL": "octo@example.com"}
    env |= {"GIT_COMMITTER_NAME": "Octo", "GIT_COMMITTER_EMAIL": "octo@example.com"}
    work = tmp_path / "clone"

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=work, env=env, check=True, capture_output=True)

    subprocess.run(["git", "clone", "-q", str(bare), str(work)], env=env, check=True)
    git("checkout", "-q", "-B", branch)
    (work / CONFIG_PATH).parent.mkdir(parents=True, exist_ok=True)
    if symlink:
        (work / CONFIG_PATH).symlink_to(raw.decode())
    else:
        (work / CONFIG_PATH).write_bytes(raw)
    git("add", CONFIG_PATH)
    git("commit", "-q", "-m", "settings")
    git("push", "-q", "origin", f"HEAD:refs/heads/{branch}")


def add_repo(fake: FakeGitHub, files: dict[str, str], branch: str = "main") -> None:
    fake.add_repo(REPO, files={"README.md": "hi\n", **files}, default_branch=branch)


def loaded(gh: GitHubClient, defaults: RepoConfigDefaults, branch: str = "main") -> EffectiveConfig:
    result = load_repo_config(gh, REPO, branch, defaults)
    assert isinstance(result, EffectiveConfig), str(result)
    return result


def failed(gh: GitHubClient, defaults: RepoConfigDefaults) -> RepoConfigError:
    result = load_repo_config(gh, REPO, "main", defaults)
    assert isinstance(result, RepoConfigError)
    return result


def test_no_file_means_the_defaults(
    gh: GitHubClient, fake_github: FakeGitHub, defaults: RepoConfigDefaults
) -> None:
    add_repo(fake_github, {})
    config = loaded(gh, defaults)
    assert not config.from_file
    assert config.trigger_label == "agentium"
    assert config.workflow == defaults.workflow
    (call,) = fake_github.calls("GET", CONTENTS)
    assert call.path == f"/repos/{REPO}/contents/{CONFIG_PATH}"
    assert call.query == "ref=main"
    assert call.status == 404


def test_the_file_on_the_default_branch_is_merged(
    gh: GitHubClient, fake_github: FakeGitHub, defaults: RepoConfigDefaults
) -> None:
    text = "trigger_label: ai\nlimits:\n  COMPLEX:\n    IMPLEMENT: 7\ntest_command: make check\n"
    add_repo(fake_github, {CONFIG_PATH: text}, branch="trunk")
    config = loaded(gh, defaults, branch="trunk")
    assert config.from_file
    assert (config.trigger_label, config.test_command) == ("ai", "make check")
    assert config.limits.COMPLEX.IMPLEMENT == 7
    assert fake_github.calls("GET", CONTENTS)[0].query == "ref=trunk"


def test_another_branch_is_not_read(
    gh: GitHubClient, fake_github: FakeGitHub, defaults: RepoConfigDefaults, tmp_path: Path
) -> None:
    add_repo(fake_github, {})
    commit_file(fake_github.bare_path(REPO), tmp_path, "feature", b"trigger_label: ai\n")
    assert not loaded(gh, defaults).from_file
    assert loaded(gh, defaults, branch="feature").trigger_label == "ai"


def test_an_invalid_file_gives_the_problems_with_where_it_was_read(
    gh: GitHubClient, fake_github: FakeGitHub, defaults: RepoConfigDefaults
) -> None:
    add_repo(fake_github, {CONFIG_PATH: "# settings\nlimits:\n  SIMPLE:\n    PLAN: 30\n"})
    error = failed(gh, defaults)
    assert str(error) == (
        "`.github/agentium.yml` line 4: limits.SIMPLE.PLAN: must be between 1 and 20"
    )
    assert error.ref == "main"
    assert error.html_url == f"https://github.com/{REPO}/blob/main/{CONFIG_PATH}"


def test_a_directory_is_an_error(
    gh: GitHubClient, fake_github: FakeGitHub, defaults: RepoConfigDefaults
) -> None:
    add_repo(fake_github, {f"{CONFIG_PATH}/x.yml": "a: 1\n"})
    (problem,) = failed(gh, defaults).problems
    assert problem.message == "expected a file, found a directory"


def test_a_symlink_is_an_error(
    gh: GitHubClient, fake_github: FakeGitHub, defaults: RepoConfigDefaults, tmp_path: Path
) -> None:
    add_repo(fake_github, {})
    commit_file(fake_github.bare_path(REPO), tmp_path, "main", b"../../elsewhere", symlink=True)
    (problem,) = failed(gh, defaults).problems
    assert problem.message == "expected a file, found a symbolic link"


def test_an_oversized_file_is_an_error(
    gh: GitHubClient, fake_github: FakeGitHub, defaults: RepoConfigDefaults
) -> None:
    add_repo(fake_github, {CONFIG_PATH: "# " + "x" * 70_000 + "\n"})
    (problem,) = failed(gh, defaults).problems
    assert problem.message == "the file is 70,003 bytes; at most 65,536 bytes (64 KB) are read"


def test_a_file_over_a_megabyte_is_an_error(
    gh: GitHubClient, fake_github: FakeGitHub, defaults: RepoConfigDefaults
) -> None:
    add_repo(fake_github, {CONFIG_PATH: "#" * 1_100_000 + "\n"})
    (problem,) = failed(gh, defaults).problems
    assert problem.message.startswith("the file is too large")
    assert fake_github.calls("GET", CONTENTS)[0].status == 403


def test_a_file_that_is_not_utf8_is_an_error(
    gh: GitHubClient, fake_github: FakeGitHub, defaults: RepoConfigDefaults, tmp_path: Path
) -> None:
    add_repo(fake_github, {})
    commit_file(fake_github.bare_path(REPO), tmp_path, "main", b"test_command: make\n# caf\xe9\n")
    (problem,) = failed(gh, defaults).problems
    assert (problem.message, problem.line) == ("not UTF-8 text", 2)


def test_other_github_errors_are_raised(
    gh: GitHubClient, fake_github: FakeGitHub, defaults: RepoConfigDefaults
) -> None:
    add_repo(fake_github, {CONFIG_PATH: "a: 1\n"})
    fake_github.fail(403, path="/contents/")
    with pytest.raises(RequestFailed):
        load_repo_config(gh, REPO, "main", defaults)


def test_a_bad_repository_name_is_a_value_error(
    gh: GitHubClient, defaults: RepoConfigDefaults
) -> None:
    with pytest.raises(ValueError, match="owner/repo"):
        load_repo_config(gh, "octo", "main", defaults)
