"""Pytest fixtures for the fake GitHub; conftest files import the ones they use."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from pydantic import SecretStr

from tests.fakes.clock import ManualClock
from tests.fakes.github import FakeGitHub
from tests.fakes.keys import app_key_pair
from workers.github.auth import AppCredentials
from workers.github.client import ClientOptions, GitHubClients
from workers.github.effects import GitHubEffects, TaskInfo
from workers.github.refs import IssueRef
from workers.gitops.runner import Git
from workers.gitops.workspace import GitWorkspace, bot_identity

APP_ID = 4242
SLUG = "agentium"
INSTALLATION = 77
REPO = "octo/hello"
ISSUE = 22
TRIGGER = "alice"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def fake_github(tmp_path: Path, clock: ManualClock) -> Iterator[FakeGitHub]:
    keys = app_key_pair()
    fake = FakeGitHub(app_id=APP_ID, public_key_pem=keys.public_pem, clock=clock, root=tmp_path)
    with fake:
        fake.add_installation(INSTALLATION)
        fake.add_repo(REPO, files={"README.md": "# hello\n", "hello.py": "print('hi')\n"})
        fake.add_issue(REPO, ISSUE, "Add a greeting", "Please greet the user.")
        fake.set_role(REPO, TRIGGER, "write")
        yield fake


@pytest.fixture
def credentials() -> AppCredentials:
    return AppCredentials(APP_ID, SecretStr(app_key_pair().private_pem))


@pytest.fixture
def clients(
    fake_github: FakeGitHub,
    redis_client: redis.Redis,
    clock: ManualClock,
    credentials: AppCredentials,
) -> GitHubClients:
    options = ClientOptions(base_url=fake_github.url, write_interval_s=1.0, timeout_s=10)
    return GitHubClients(credentials, redis_client, clock, options)


@pytest.fixture
def issue_ref() -> IssueRef:
    return IssueRef.parse(REPO, ISSUE)


class TaskFactory:
    """Builds the workspace and the effects performer of a task, as a worker job would."""

    def __init__(
        self, clients: GitHubClients, fake: FakeGitHub, redis_client: redis.Redis, root: Path
    ):
        self.clients, self.fake, self.redis, self.root = clients, fake, redis_client, root

    def workspace(self, name: str = "ws", issue: int = ISSUE, repo: str = REPO) -> GitWorkspace:
        return GitWorkspace(
            self.root / name,
            self.fake.git_url(repo),
            issue,
            bot_identity(APP_ID, SLUG),
            lambda: self.clients.token(INSTALLATION),
            Git(self.root),
        )

    def effects(
        self,
        workspace: GitWorkspace,
        run: str = "run-1",
        issue: int = ISSUE,
        repo: str = REPO,
        fence: Callable[[], None] = lambda: None,
    ) -> GitHubEffects:
        task = TaskInfo(IssueRef.parse(repo, issue), TRIGGER, run)
        gh = self.clients.installation(INSTALLATION)
        return GitHubEffects(gh, self.redis, task, workspace, fence=fence)


@pytest.fixture
def tasks(
    clients: GitHubClients, fake_github: FakeGitHub, redis_client: redis.Redis, tmp_path: Path
) -> TaskFactory:
    return TaskFactory(clients, fake_github, redis_client, tmp_path)
