"""The GitHub clients' connections: kept between requests and by a request's end (githubkit
closes the transport after each one), never used by a forked work-horse (against the fake
GitHub over real HTTP; the fake records the port each request came from)."""

from __future__ import annotations

import os

from tests.fakes.github import FakeGitHub
from tests.fakes.github_fixtures import INSTALLATION
from workers.github.client import GitHubClients
from workers.github.refs import IssueRef


def _title(clients: GitHubClients, ref: IssueRef) -> str:
    gh = clients.installation(INSTALLATION)
    return gh.rest.issues.get(ref.owner, ref.repo, ref.number).parsed_data.title


def _ports(fake: FakeGitHub) -> list[int | None]:
    return [r.peer for r in fake.requests if r.route.startswith("GET /repos")]


def test_requests_share_one_connection(
    clients: GitHubClients, fake_github: FakeGitHub, issue_ref: IssueRef
) -> None:
    """A request's end no longer closes the pool, which cut the requests other threads had
    on it (ReadError) and made every request open a connection (a TLS handshake)."""
    for _ in range(3):
        _title(clients, issue_ref)
    ports = _ports(fake_github)
    assert len(ports) == 3 and len(set(ports)) == 1 and ports[0] is not None


def test_a_forked_process_uses_connections_of_its_own(
    clients: GitHubClients, fake_github: FakeGitHub, issue_ref: IssueRef
) -> None:
    first = _title(clients, issue_ref)  # the parent keeps a connection
    children = []
    for _ in range(3):
        pid = os.fork()
        if pid == 0:  # a work-horse: its requests must not use the parent's socket
            ok = False
            try:
                ok = _title(clients, issue_ref) == first and _title(clients, issue_ref) == first
            finally:
                os._exit(0 if ok else 1)
        children.append(pid)
    codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
    assert codes == [0, 0, 0]
    assert _title(clients, issue_ref) == first
    parent, *horses, again = _ports(fake_github)
    assert again == parent  # the parent's connection, untouched by its children
    assert parent not in horses and len(set(horses)) == 3  # one connection per child
