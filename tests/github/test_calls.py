"""The single calls: comments, PRs, labels, reactions, checks and the permission check."""

from __future__ import annotations

import subprocess

import pytest
import redis
import respx
from githubkit.exception import RequestFailed

from tests.fakes.clock import ManualClock
from tests.fakes.github import FakeGitHub
from tests.fakes.github_fixtures import INSTALLATION, ISSUE, REPO, TRIGGER
from workers.github import checks, labels, permissions, pulls, reactions
from workers.github.auth import AppCredentials
from workers.github.bodies import MAX_BODY_CHARS, fit, marker
from workers.github.client import ClientOptions, GitHubClient, GitHubClients
from workers.github.comments import PENDING, post_once, upsert
from workers.github.marks import TaskMarks
from workers.github.refs import IssueRef


@pytest.fixture
def tasks_branch(fake_github: FakeGitHub) -> str:
    """The task branch, pushed (here: made in the bare repository)."""
    bare = fake_github.bare_path(REPO)
    subprocess.run(["git", "branch", "agentium/issue-22", "main"], cwd=bare, check=True)
    return "agentium/issue-22"


def _gh(clients: GitHubClients) -> GitHubClient:
    return clients.installation(INSTALLATION)


def _marks(redis_client: redis.Redis, ref: IssueRef) -> TaskMarks:
    return TaskMarks(redis_client, ref.key)


def test_status_comment_is_edited_in_place(
    clients: GitHubClients, fake_github: FakeGitHub, redis_client: redis.Redis, issue_ref: IssueRef
) -> None:
    marks = _marks(redis_client, issue_ref)
    first = upsert(_gh(clients), issue_ref, "status", f"{marker('status')}\none", marks)
    again = upsert(_gh(clients), issue_ref, "status", f"{marker('status')}\ntwo", marks)
    upsert(_gh(clients), issue_ref, "status", f"{marker('status')}\ntwo", marks)  # unchanged
    assert first.created and again.id == first.id
    (comment,) = fake_github.comments(REPO, ISSUE)
    assert comment.body.endswith("two")
    assert (
        len(fake_github.calls("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}")) == 1
    )


def test_status_comment_of_an_earlier_run_is_found_by_its_marker(
    clients: GitHubClients, fake_github: FakeGitHub, redis_client: redis.Redis, issue_ref: IssueRef
) -> None:
    gh = _gh(clients)
    gh.rest.issues.create_comment("octo", "hello", ISSUE, body="a human's comment")
    old = gh.rest.issues.create_comment("octo", "hello", ISSUE, body=f"{marker('status')}\nold")
    posted = upsert(
        gh, issue_ref, "status", f"{marker('status')}\nnew", _marks(redis_client, issue_ref)
    )
    assert posted.id == old.parsed_data.id and not posted.created
    assert [c.body for c in fake_github.comments(REPO, ISSUE)][1].endswith("new")


def test_post_once_after_a_crash_between_post_and_saving_the_id(
    clients: GitHubClients, fake_github: FakeGitHub, redis_client: redis.Redis, issue_ref: IssueRef
) -> None:
    gh, marks = _gh(clients), _marks(redis_client, issue_ref)
    name = "feedback:r:IMPLEMENT:1"
    gh.rest.issues.create_comment("octo", "hello", ISSUE, body=f"{marker(name)}\nposted")
    marks.set(f"comment:{ISSUE}:{name}", PENDING)  # the job died before saving the id
    posted = post_once(gh, issue_ref, name, f"{marker(name)}\nposted", marks)
    assert not posted.created
    assert len(fake_github.comments(REPO, ISSUE)) == 1


def test_long_bodies_are_cut_with_a_pointer(
    clients: GitHubClients, fake_github: FakeGitHub, redis_client: redis.Redis, issue_ref: IssueRef
) -> None:
    name = "plan:r"
    body = f"{marker(name)}\n" + "x" * 100_000
    post_once(_gh(clients), issue_ref, name, body, _marks(redis_client, issue_ref))
    (comment,) = fake_github.comments(REPO, ISSUE)
    assert len(comment.body) == MAX_BODY_CHARS
    assert comment.body.startswith(marker(name)) and "Cut at 65,536 characters" in comment.body
    assert fit("short", "pointer") == "short"


def test_pr_is_opened_as_draft_found_again_and_marked_ready(
    clients: GitHubClients, fake_github: FakeGitHub, tasks_branch: str, issue_ref: IssueRef
) -> None:
    gh = _gh(clients)
    opened, wip = pulls.open_draft(
        gh, issue_ref, branch=tasks_branch, base="main", title="Add a greeting", body="Fixes #22"
    )
    assert not wip and opened.draft
    assert pulls.find_open(gh, issue_ref, tasks_branch) == opened
    assert pulls.find_open(gh, issue_ref, "agentium/issue-999") is None
    assert pulls.mark_ready(gh, opened)
    pulls.request_review(gh, issue_ref, opened.number, TRIGGER)
    assert not pulls.get(gh, issue_ref, opened.number).draft
    assert fake_github.repo(REPO).pulls[opened.number].reviewers == [TRIGGER]


def test_labels_are_created_once_then_set_and_removed(
    clients: GitHubClients, fake_github: FakeGitHub, redis_client: redis.Redis, issue_ref: IssueRef
) -> None:
    gh = _gh(clients)
    fake_github.repo(REPO).labels["agentium:done"] = {"color": "000000", "description": ""}
    for name in (labels.WORKING, labels.DONE, labels.WORKING):
        labels.add_label(gh, redis_client, issue_ref, name)
    labels.remove_label(gh, issue_ref, labels.WORKING)
    labels.remove_label(gh, issue_ref, labels.WORKING)  # 404: already gone
    assert fake_github.repo(REPO).issue_labels[ISSUE] == [labels.DONE]
    created = fake_github.calls("POST", "/repos/{owner}/{repo}/labels")
    assert [c.status for c in created] == [201, 422]  # the existing one: already_exists


def test_eyes_reaction_is_not_doubled(
    clients: GitHubClients, fake_github: FakeGitHub, issue_ref: IssueRef
) -> None:
    reactions.add_eyes(_gh(clients), issue_ref)
    reactions.add_eyes(_gh(clients), issue_ref)
    assert fake_github.repo(REPO).reactions[ISSUE] == [("agentium[bot]", "eyes")]
    command = _gh(clients).rest.issues.create_comment(
        "octo", "hello", ISSUE, body="/agentium status"
    )
    reactions.add_eyes_to_comment(_gh(clients), issue_ref, command.parsed_data.id)
    assert fake_github.repo(REPO).reactions[command.parsed_data.id] == [("agentium[bot]", "eyes")]


def test_a_deleted_status_comment_is_posted_again(
    clients: GitHubClients, fake_github: FakeGitHub, redis_client: redis.Redis, issue_ref: IssueRef
) -> None:
    marks = _marks(redis_client, issue_ref)
    first = upsert(_gh(clients), issue_ref, "status", f"{marker('status')}\none", marks)
    del fake_github.repo(REPO).comments[first.id]
    again = upsert(_gh(clients), issue_ref, "status", f"{marker('status')}\ntwo", marks)
    assert again.created and again.id != first.id
    assert [c.body for c in fake_github.comments(REPO, ISSUE)] == [f"{marker('status')}\ntwo"]


def test_check_run_lifecycle(
    clients: GitHubClients, fake_github: FakeGitHub, issue_ref: IssueRef
) -> None:
    sha = fake_github.branch_sha(REPO, "main")
    assert sha is not None
    run_id = checks.start(_gh(clients), issue_ref, sha, "working")
    checks.finish(
        _gh(clients),
        issue_ref,
        run_id,
        checks.Conclusion.ACTION_REQUIRED,
        title="NOMERGE",
        summary="IMPLEMENT iteration 2: max_iterations",
        details_url="https://github.com/octo/hello/pull/23#issuecomment-1",
    )
    run = fake_github.repo(REPO).check_runs[run_id]
    assert (run["status"], run["conclusion"]) == ("completed", "action_required")
    assert run["output"]["summary"] == "IMPLEMENT iteration 2: max_iterations"


def test_permission_check_and_one_polite_refusal(
    clients: GitHubClients, fake_github: FakeGitHub, redis_client: redis.Redis, issue_ref: IssueRef
) -> None:
    gh, marks = _gh(clients), _marks(redis_client, issue_ref)
    for user, role in (("mo", "maintain"), ("ad", "admin"), ("rita", "read"), ("tri", "triage")):
        fake_github.set_role(REPO, user, role)
    assert [permissions.can_write(gh, issue_ref, u) for u in (TRIGGER, "mo", "ad")] == [True] * 3
    assert not permissions.admit(gh, issue_ref, "rita", marks)
    assert not permissions.admit(gh, issue_ref, "rita", marks)
    assert not permissions.admit(gh, issue_ref, "stranger", marks)  # 404: not a collaborator
    assert not permissions.can_write(gh, issue_ref, "tri")
    bodies = [c.body for c in fake_github.comments(REPO, ISSUE)]
    assert len(bodies) == 2 and "@rita" in bodies[0] and "@stranger" in bodies[1]


@respx.mock
def test_label_creation_errors_other_than_422_propagate(
    redis_client: redis.Redis, clock: ManualClock, credentials: AppCredentials
) -> None:
    api = "https://api.github.test"
    redis_client.set(
        f"agentium:gh:token:{INSTALLATION}", '{"token": "ghs_x", "expires_at": 9999999999}'
    )
    respx.post(f"{api}/repos/o/r/labels").respond(404, json={"message": "Not Found"})
    gh = GitHubClients(credentials, redis_client, clock, ClientOptions(base_url=api))
    try:
        labels.ensure_label(gh.installation(INSTALLATION), redis_client, IssueRef("o", "r", 1), "x")
    except RequestFailed as error:
        assert error.response.status_code == 404
    else:
        raise AssertionError("a 404 must not pass as 'label exists'")
