"""App JWT, installation tokens in Redis, and a task that outlives its token."""

from __future__ import annotations

import httpx
import jwt
import redis
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from config import keys
from tests.fakes.clock import ManualClock
from tests.fakes.github import FakeGitHub
from tests.fakes.github_fixtures import INSTALLATION, REPO, TaskFactory
from tests.fakes.github_task import drive
from tests.fakes.keys import app_key_pair
from workers.github.auth import AppCredentials, app_jwt
from workers.github.client import GitHubClients
from workers.github.refs import IssueRef

MINT = "/app/installations/{installation_id}/access_tokens"


def test_app_jwt_is_backdated_and_short(credentials: AppCredentials) -> None:
    token = app_jwt(credentials, now=1_000_000.0)
    claims = jwt.decode(
        token,
        app_key_pair().public_pem,
        algorithms=["RS256"],
        options={"verify_exp": False, "verify_iat": False},
    )
    assert claims == {"iat": 1_000_000 - 60, "exp": 1_000_000 - 60 + 600, "iss": "4242"}


def test_token_is_minted_once_and_shared_through_redis(
    clients: GitHubClients, fake_github: FakeGitHub, redis_client: redis.Redis
) -> None:
    first = clients.token(INSTALLATION)
    assert clients.token(INSTALLATION) == first
    assert redis_client.ttl(keys.installation_token(INSTALLATION)) > 3000
    assert len(fake_github.calls("POST", MINT)) == 1
    assert fake_github.calls("POST", MINT)[0].auth == "app"


def test_token_is_refreshed_before_it_expires(
    clients: GitHubClients, fake_github: FakeGitHub, clock: ManualClock
) -> None:
    first = clients.token(INSTALLATION)
    clock.advance(49 * 60)
    assert clients.token(INSTALLATION) == first  # 11 minutes left: still good
    clock.advance(2 * 60)
    second = clients.token(INSTALLATION)  # 9 minutes left: replaced
    assert second != first
    assert len(fake_github.calls("POST", MINT)) == 2


def test_a_task_runs_past_the_token_expiry(
    tasks: TaskFactory, fake_github: FakeGitHub, clock: ManualClock
) -> None:
    """Each step of #22 takes 40 minutes: the task lasts hours, far past the first token."""
    ws = tasks.workspace()
    drive("issue-22-simple.yml", tasks.effects(ws), ws, between=lambda _: clock.advance(40 * 60))
    mints = fake_github.calls("POST", MINT)
    assert len(mints) >= 5
    assert [r for r in fake_github.requests if r.status == 401] == []
    assert len(fake_github.repo(REPO).pulls) == 1


def test_a_revoked_token_is_replaced_on_401(
    clients: GitHubClients, fake_github: FakeGitHub, issue_ref: IssueRef
) -> None:
    gh = clients.installation(INSTALLATION)
    gh.rest.issues.get(issue_ref.owner, issue_ref.repo, issue_ref.number)
    fake_github.tokens.clear()  # GitHub revoked it
    issue = gh.rest.issues.get(issue_ref.owner, issue_ref.repo, issue_ref.number).parsed_data
    assert issue.number == issue_ref.number
    statuses = [r.status for r in fake_github.requests if "issues" in r.path]
    assert statuses == [200, 401, 200]
    assert len(fake_github.calls("POST", MINT)) == 2


def test_the_fake_rejects_bad_app_jwts(
    fake_github: FakeGitHub, credentials: AppCredentials, clock: ManualClock
) -> None:
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = other.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    now = int(clock.now())
    forged = jwt.encode({"iat": now - 60, "exp": now + 500, "iss": "4242"}, pem, algorithm="RS256")
    expired = app_jwt(credentials, clock.now() - 3600)
    url = f"{fake_github.url}/app/installations/{INSTALLATION}/access_tokens"
    for bad in (forged, expired, "not-a-jwt"):
        answer = httpx.post(url, headers={"Authorization": f"Bearer {bad}"})
        assert answer.status_code == 401
        assert answer.json()["message"] == "Bad credentials"
    good = httpx.post(url, headers={"Authorization": f"Bearer {app_jwt(credentials, now)}"})
    assert good.status_code == 201
