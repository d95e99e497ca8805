"""The controller's GitHub effects performed against the fake GitHub, for whole scenarios."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.fakes.github import FakeGitHub
from tests.fakes.github_fixtures import ISSUE, REPO, TRIGGER, TaskFactory
from tests.fakes.github_task import drive
from workers.controller.effects import (
    CommentKind,
    Finish,
    OpenOrUpdatePR,
    PostComment,
    SetLabel,
    Target,
)
from workers.controller.phases import Phase
from workers.controller.state import WorkflowState
from workers.github.effects import WIP_NOTE
from workers.tasks.lease import LeaseLost


def _kinds(fake: FakeGitHub, number: int) -> Counter[str]:
    """Comments by the kind in their marker (``<!-- agentium:KIND:... -->``)."""
    return Counter(
        c.body.split("agentium:", 1)[1].split(":", 1)[0].split(" ", 1)[0]
        for c in fake.comments(REPO, number)
    )


def test_issue_22_ends_nomerge_with_a_draft_pr(tasks: TaskFactory, fake_github: FakeGitHub) -> None:
    ws = tasks.workspace()
    run = drive("issue-22-simple.yml", tasks.effects(ws), ws)
    assert run.state.pr_result == "nomerge"
    (pr,) = fake_github.repo(REPO).pulls.values()
    assert pr.draft and pr.title == "Add a greeting" and pr.head == "agentium/issue-22"
    assert pr.body.startswith("<!-- agentium:pr -->\nFixes #22")
    assert "- [x] IMPLEMENT: 2 iteration(s)" in pr.body and "Finalised (nomerge)" in pr.body
    assert _kinds(fake_github, ISSUE) == Counter({"status": 1, "plan": 1})
    assert _kinds(fake_github, pr.number) == Counter({"feedback": 3, "nomerge": 1})
    status = next(c for c in fake_github.comments(REPO, ISSUE) if "agentium:status" in c.body)
    assert "COMPLETE" in status.body and "max_iterations" in status.body


def test_issue_22_labels_reaction_and_check_runs(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    ws = tasks.workspace()
    drive("issue-22-simple.yml", tasks.effects(ws), ws)
    repo = fake_github.repo(REPO)
    assert repo.issue_labels[ISSUE] == ["agentium:done"]
    assert repo.labels["agentium:working"]["color"] == "fbca04"
    assert repo.reactions[ISSUE] == [("agentium[bot]", "eyes")]
    runs = sorted(repo.check_runs.values(), key=lambda r: r["id"])
    assert [r["name"] for r in runs] == ["agentium/judge"] * 3  # one per pushed head
    assert [r["conclusion"] for r in runs] == ["neutral", "neutral", "action_required"]
    final = runs[-1]
    assert final["head_sha"] == fake_github.branch_sha(REPO, "agentium/issue-22")
    assert "max_iterations" in final["output"]["summary"]
    assert final["details_url"].endswith(f"#issuecomment-{_nomerge_id(fake_github)}")
    assert not ws.path.exists()  # cleaned up when the task ended


def _nomerge_id(fake: FakeGitHub) -> int:
    return next(c.id for c in fake.repo(REPO).comments.values() if "agentium:nomerge" in c.body)


def test_every_effect_performed_twice_changes_nothing(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    ws = tasks.workspace()
    drive("issue-22-simple.yml", tasks.effects(ws), ws, repeat=2)
    repo = fake_github.repo(REPO)
    assert len(repo.pulls) == 1
    (pr,) = repo.pulls.values()
    assert _kinds(fake_github, ISSUE) == Counter({"status": 1, "plan": 1})
    assert _kinds(fake_github, pr.number) == Counter({"feedback": 3, "nomerge": 1})
    assert len(repo.check_runs) == 3
    assert len(fake_github.calls("POST", "/repos/{owner}/{repo}/pulls")) == 1


def test_a_restarted_worker_without_marks_adopts_the_pr_and_status_comment(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    """Redis lost the marks (worst case): markers and the branch find everything again."""
    ws = tasks.workspace()

    def forget(state: object) -> None:
        tasks.redis.flushdb()

    drive("issue-22-simple.yml", tasks.effects(ws), ws, between=forget)
    repo = fake_github.repo(REPO)
    assert len(repo.pulls) == 1
    assert _kinds(fake_github, ISSUE)["status"] == 1
    assert len(fake_github.calls("POST", "/repos/{owner}/{repo}/pulls")) == 1


def test_issue_42_marks_the_pr_ready_and_requests_review(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    fake_github.add_issue(REPO, 42, "Rework the queue")
    ws = tasks.workspace(issue=42)
    drive("issue-42-complex.yml", tasks.effects(ws, issue=42), ws)
    (pr,) = fake_github.repo(REPO).pulls.values()
    assert not pr.draft and pr.reviewers == [TRIGGER]
    (graphql,) = fake_github.calls("POST", "/graphql")
    assert graphql.body["variables"] == {"id": pr.node_id}
    final = max(fake_github.repo(REPO).check_runs.values(), key=lambda r: r["id"])
    assert final["conclusion"] == "success"
    assert fake_github.repo(REPO).issue_labels[42] == ["agentium:done"]
    # PLAN was judged before the PR existed: its feedback went on the issue
    assert _kinds(fake_github, 42)["feedback"] == 1
    assert _kinds(fake_github, pr.number)["feedback"] == 2


def test_nothing_to_do_opens_no_pr(tasks: TaskFactory, fake_github: FakeGitHub) -> None:
    fake_github.add_issue(REPO, 9, "Validate input")
    ws = tasks.workspace(issue=9)
    drive("nothing-to-do.yml", tasks.effects(ws, issue=9), ws)
    repo = fake_github.repo(REPO)
    assert repo.pulls == {} and repo.check_runs == {}
    assert _kinds(fake_github, 9) == Counter({"status": 1, "nothing_to_do": 1})
    assert "already fixed by #8" in fake_github.comments(REPO, 9)[-1].body


def test_private_repo_without_drafts_gets_a_wip_pr(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    fake_github.add_repo("octo/secret", private=True, drafts=False)
    fake_github.add_issue("octo/secret", 42, "Rework the queue")
    fake_github.set_role("octo/secret", TRIGGER, "admin")
    ws = tasks.workspace(issue=42, repo="octo/secret")
    drive("issue-42-complex.yml", tasks.effects(ws, issue=42, repo="octo/secret"), ws)
    creates = fake_github.calls("POST", "/repos/{owner}/{repo}/pulls")
    assert [c.status for c in creates] == [422, 201]
    assert creates[1].body["title"] == "[WIP] Rework the queue" and "draft" not in creates[1].body
    (pr,) = fake_github.repo("octo/secret").pulls.values()
    assert pr.title == "Rework the queue"  # ready: the [WIP] prefix is dropped
    assert WIP_NOTE in pr.body
    assert fake_github.calls("POST", "/graphql") == []


def test_issue_22_costs_at_most_40_requests(tasks: TaskFactory, fake_github: FakeGitHub) -> None:
    ws = tasks.workspace()
    drive("issue-22-simple.yml", tasks.effects(ws), ws)
    assert len(fake_github.api_requests()) <= 40
    assert all(r.status < 400 for r in fake_github.api_requests())


def test_a_step_that_lost_its_lease_neither_pushes_nor_posts(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    """The fence is asked before every effect and between the push and the PR; once it
    refuses, nothing more reaches GitHub, git push included (docs/design.md §7)."""
    lost: list[str] = []

    def fence() -> None:
        if lost:
            raise LeaseLost(lost[0])

    ws = tasks.workspace()
    ws.prepare()
    effects = tasks.effects(ws, fence=fence)
    effects.start()
    state = WorkflowState()
    effects.perform([PostComment(Target.ISSUE, CommentKind.STATUS)], state)
    (ws.path / "NOTES.md").write_text("work\n")
    ws.commit("IMPLEMENT", 1, "a change")
    before = len(fake_github.requests)
    lost.append("o/r#22")
    for effect in (
        OpenOrUpdatePR(create=True),
        PostComment(Target.ISSUE, CommentKind.STATUS),
        SetLabel("agentium:blocked"),
        Finish(Phase.BLOCKED),
    ):
        with pytest.raises(LeaseLost):
            effects.perform([effect], state)
    assert fake_github.requests[before:] == []
    assert fake_github.branch_sha(REPO, "agentium/issue-22") is None
    assert ws.path.exists()  # the checkout is the next holder's, not removed
