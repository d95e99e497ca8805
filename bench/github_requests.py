"""How many GitHub requests one task costs: the seed's example #22 against the fake GitHub.

Runs ``tests/scenarios/issue-22-simple.yml`` (SIMPLE: PLAN 1, IMPLEMENT 2 with a controller
override, DOCS 1, NOMERGE) through the phase controller with scripted agent outputs, while
the real GitHub effects and the real git workspace talk to the fake GitHub over HTTP.
Prints the REST/GraphQL requests by route and in total (target: at most 40), and the git
smart-HTTP requests apart. A manual clock stands in for the 1 s write spacing, so the run
takes seconds; the spacing it would have waited is printed too.

    python -m bench.github_requests
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import redis
from pydantic import SecretStr

from tests.fakes.clock import ManualClock
from tests.fakes.github import FakeGitHub
from tests.fakes.github_task import drive
from tests.fakes.keys import app_key_pair
from workers.github.auth import AppCredentials
from workers.github.client import ClientOptions, GitHubClients
from workers.github.effects import GitHubEffects, TaskInfo
from workers.github.refs import IssueRef
from workers.gitops.runner import Git
from workers.gitops.workspace import GitWorkspace, bot_identity
from workers.processes.embedded_redis import EmbeddedRedis

TARGET = 40
APP_ID, INSTALLATION, REPO, ISSUE, USER = 4242, 77, "octo/hello", 22, "alice"


def _run(root: Path, redis_client: redis.Redis) -> FakeGitHub:
    clock = ManualClock()
    keys = app_key_pair()
    fake = FakeGitHub(app_id=APP_ID, public_key_pem=keys.public_pem, clock=clock, root=root)
    with fake:
        fake.add_installation(INSTALLATION)
        fake.add_repo(REPO, files={"README.md": "# hello\n"})
        fake.add_issue(REPO, ISSUE, "Add a greeting")
        fake.set_role(REPO, USER, "write")
        credentials = AppCredentials(APP_ID, SecretStr(keys.private_pem))
        clients = GitHubClients(credentials, redis_client, clock, ClientOptions(base_url=fake.url))
        ws = GitWorkspace(
            root / "workspace",
            fake.git_url(REPO),
            ISSUE,
            bot_identity(APP_ID, "agentium"),
            lambda: clients.token(INSTALLATION),
            Git(root),
        )
        ref = IssueRef.parse(REPO, ISSUE)
        gh = clients.installation(INSTALLATION)
        effects = GitHubEffects(gh, redis_client, TaskInfo(ref, USER, "bench"), ws)
        gh.rest.repos.get_collaborator_permission_level(ref.owner, ref.repo, USER)
        drive("issue-22-simple.yml", effects, ws)
    print(f"write spacing that would have been waited: {sum(clock.slept):.0f} s")
    return fake


def _report(fake: FakeGitHub) -> int:
    api = fake.count_by_route()
    git = fake.count_by_route(include_git=True) - api
    width = max(len(route) for route in api)
    print("GitHub REST/GraphQL requests for example #22 (permission check included):")
    for route, count in sorted(api.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {count:3d}  {route:<{width}}")
    total = sum(api.values())
    print(f"  {total:3d}  total (target <= {TARGET})")
    print(f"git smart-HTTP requests (clone, ls-remote, push): {sum(git.values())}")
    return total


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="agentium-bench-") as tmp:
        root = Path(tmp)
        external = os.environ.get("REDIS_URL")
        if external:
            fake = _run(root, redis.Redis.from_url(external))
        else:
            with EmbeddedRedis(data_dir=root / "redis") as server:
                client = redis.Redis.from_url(server.url)
                client.flushdb()
                fake = _run(root, client)
                client.close()
        total = _report(fake)
    return 0 if total <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
