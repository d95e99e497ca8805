"""Retries, rate limits, spaced writes and request logs, against the fake's fault switches."""

from __future__ import annotations

import logging

import httpx
import pytest
import redis
import respx
from githubkit.exception import GraphQLFailed, RequestFailed, RequestTimeout

from tests.fakes.clock import ManualClock
from tests.fakes.github import FakeGitHub
from tests.fakes.github_fixtures import INSTALLATION
from workers.github.auth import AppCredentials
from workers.github.client import ClientOptions, GitHubClients
from workers.github.heads import remote_heads
from workers.github.pulls import READY_MUTATION
from workers.github.refs import IssueRef
from workers.github.spacing import is_content_write

ISSUE_ROUTE = "/repos/{owner}/{repo}/issues/{issue_number}"


def _get_issue(clients: GitHubClients, ref: IssueRef) -> str:
    gh = clients.installation(INSTALLATION)
    return gh.rest.issues.get(ref.owner, ref.repo, ref.number).parsed_data.title


def test_5xx_is_retried_with_backoff(
    clients: GitHubClients, fake_github: FakeGitHub, clock: ManualClock, issue_ref: IssueRef
) -> None:
    fake_github.fail(502, times=2, path="/issues/")
    assert _get_issue(clients, issue_ref) == "Add a greeting"
    assert [r.status for r in fake_github.calls("GET", ISSUE_ROUTE)] == [502, 502, 200]
    assert clock.slept == [1.0, 2.0]


def test_5xx_gives_up_after_the_retries(
    clients: GitHubClients, fake_github: FakeGitHub, issue_ref: IssueRef
) -> None:
    fake_github.fail(503, times=10, path="/issues/")
    with pytest.raises(RequestFailed):
        _get_issue(clients, issue_ref)
    assert len(fake_github.calls("GET", ISSUE_ROUTE)) == 4  # first try + 3 retries


def test_secondary_rate_limit_honours_retry_after(
    clients: GitHubClients, fake_github: FakeGitHub, clock: ManualClock, issue_ref: IssueRef
) -> None:
    fake_github.fail(403, path="/issues/", headers={"retry-after": "7"})
    assert _get_issue(clients, issue_ref) == "Add a greeting"
    assert clock.slept == [7.0]


def test_primary_rate_limit_waits_until_the_reset(
    clients: GitHubClients, fake_github: FakeGitHub, clock: ManualClock, issue_ref: IssueRef
) -> None:
    reset = int(clock.now()) + 30
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}
    fake_github.fail(429, path="/issues/", headers=headers)
    assert _get_issue(clients, issue_ref) == "Add a greeting"
    assert clock.slept == [pytest.approx(31.0, abs=1)]


def test_a_rate_limit_beyond_the_bound_is_not_waited(
    clients: GitHubClients, fake_github: FakeGitHub, clock: ManualClock, issue_ref: IssueRef
) -> None:
    fake_github.fail(403, path="/issues/", headers={"retry-after": "3600"})
    with pytest.raises(RequestFailed):
        _get_issue(clients, issue_ref)
    assert clock.slept == []


def test_a_plain_403_or_404_is_not_retried(
    clients: GitHubClients, fake_github: FakeGitHub, clock: ManualClock, issue_ref: IssueRef
) -> None:
    fake_github.fail(403, path="/issues/")
    with pytest.raises(RequestFailed):
        _get_issue(clients, issue_ref)
    with pytest.raises(RequestFailed):
        _get_issue(clients, IssueRef(issue_ref.owner, issue_ref.repo, 999))
    assert clock.slept == []


def test_a_slow_answer_times_out_and_is_retried(
    fake_github: FakeGitHub,
    redis_client: redis.Redis,
    clock: ManualClock,
    credentials: AppCredentials,
    issue_ref: IssueRef,
) -> None:
    options = ClientOptions(base_url=fake_github.url, timeout_s=0.3)
    clients = GitHubClients(credentials, redis_client, clock, options)
    fake_github.slow(1.0, path="/issues/")
    assert _get_issue(clients, issue_ref) == "Add a greeting"
    assert clock.slept == [1.0]
    fake_github.slow(1.0, times=10, path="/issues/")
    with pytest.raises(RequestTimeout):
        _get_issue(clients, issue_ref)


@respx.mock
def test_connection_errors_are_retried(
    redis_client: redis.Redis, clock: ManualClock, credentials: AppCredentials
) -> None:
    api = "https://github.example.test/api/v3"
    redis_client.set(
        f"agentium:gh:token:{INSTALLATION}", '{"token": "ghs_x", "expires_at": 9999999999}'
    )
    route = respx.get(f"{api}/repos/o/r/issues/1").mock(
        side_effect=[httpx.ConnectError("refused"), httpx.Response(404, json={"message": "x"})]
    )
    clients = GitHubClients(credentials, redis_client, clock, ClientOptions(base_url=api))
    with pytest.raises(RequestFailed):
        clients.installation(INSTALLATION).rest.issues.get("o", "r", 1)
    assert route.call_count == 2
    assert clock.slept == [1.0]
    assert route.calls[1].request.headers["authorization"] == "token ghs_x"


def test_writes_are_spaced_per_installation_across_clients(
    fake_github: FakeGitHub,
    redis_client: redis.Redis,
    clock: ManualClock,
    credentials: AppCredentials,
    issue_ref: IssueRef,
) -> None:
    """Two processes' clients share the spacing through Redis; reads are not spaced."""
    options = ClientOptions(base_url=fake_github.url, write_interval_s=1.0)
    first = GitHubClients(credentials, redis_client, clock, options).installation(INSTALLATION)
    second = GitHubClients(credentials, redis_client, clock, options).installation(INSTALLATION)
    for gh in (first, second, first):
        gh.rest.issues.create_comment(issue_ref.owner, issue_ref.repo, issue_ref.number, body="x")
        gh.rest.issues.get(issue_ref.owner, issue_ref.repo, issue_ref.number)
    assert clock.slept == [0.0, pytest.approx(1.0), pytest.approx(1.0)]


def test_a_graphql_query_is_a_read_and_a_mutation_a_write(
    clients: GitHubClients, fake_github: FakeGitHub, clock: ManualClock, issue_ref: IssueRef
) -> None:
    """Asking where the branches are (a POST to /graphql) must not wait for the write slot."""
    gh = clients.installation(INSTALLATION)
    gh.rest.issues.create_comment(issue_ref.owner, issue_ref.repo, issue_ref.number, body="x")
    for _ in range(2):
        assert remote_heads(gh, issue_ref, "agentium/issue-1") is not None
    assert clock.slept == [0.0]  # the comment's slot only
    with pytest.raises(GraphQLFailed):  # no such pull request: still a write, still spaced
        gh.graphql.request(READY_MUTATION, {"id": "PR_nothing"})
    assert clock.slept == [0.0, pytest.approx(1.0)]
    assert not is_content_write("POST", "/graphql", b'{"query": "# reads\\n { viewer { login } }"}')
    assert is_content_write("POST", "/graphql", b'{"query": "mutation { x }"}')
    assert is_content_write("POST", "/graphql", b"not json")  # unknown: spaced


def test_every_request_is_logged_without_secrets(
    clients: GitHubClients,
    fake_github: FakeGitHub,
    issue_ref: IssueRef,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    _get_issue(clients, issue_ref)
    token = clients.token(INSTALLATION)
    lines = [r for r in caplog.records if r.getMessage() == "github request"]
    assert [(r.method, r.path, r.status) for r in lines] == [  # type: ignore[attr-defined]
        ("POST", f"/app/installations/{INSTALLATION}/access_tokens", 201),
        ("GET", "/repos/octo/hello/issues/22", 200),
    ]
    assert all(isinstance(r.ms, float) for r in lines)  # type: ignore[attr-defined]
    for record in caplog.records:
        assert token not in record.getMessage() and token not in str(record.__dict__)
