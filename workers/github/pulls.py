"""The task's pull request: find or open it (draft), update its body, mark it ready.

Private repositories on plans without draft PRs answer 422 to ``draft: true``; the PR is
then opened as a normal PR titled ``[WIP] ...`` and the caller says so.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from githubkit.exception import RequestFailed

from workers.github.client import GitHubClient
from workers.github.refs import IssueRef

log = logging.getLogger("agentium.github.pulls")

WIP_PREFIX = "[WIP] "
READY_MUTATION = """
mutation($id: ID!) {
  markPullRequestReadyForReview(input: {pullRequestId: $id}) {
    pullRequest { isDraft }
  }
}
"""


@dataclass(frozen=True)
class PullInfo:
    number: int
    node_id: str
    html_url: str
    draft: bool
    title: str


def _info(pr: Any) -> PullInfo:
    draft = pr.draft if isinstance(pr.draft, bool) else False
    return PullInfo(pr.number, pr.node_id, pr.html_url, draft, pr.title)


def find_open(gh: GitHubClient, ref: IssueRef, branch: str) -> PullInfo | None:
    """The open PR whose head is ``owner:branch`` (one to adopt), if any."""
    answer = gh.rest.pulls.list(ref.owner, ref.repo, state="open", head=f"{ref.owner}:{branch}")
    pulls = answer.parsed_data
    return _info(pulls[0]) if pulls else None


def get(gh: GitHubClient, ref: IssueRef, number: int) -> PullInfo:
    return _info(gh.rest.pulls.get(ref.owner, ref.repo, number).parsed_data)


def _drafts_unsupported(error: RequestFailed) -> bool:
    if error.response.status_code != 422:
        return False
    return "draft" in error.response.raw_response.text.lower()


def open_draft(
    gh: GitHubClient, ref: IssueRef, *, branch: str, base: str, title: str, body: str
) -> tuple[PullInfo, bool]:
    """Open the draft PR; returns it and whether the ``[WIP]`` fallback was needed."""
    try:
        answer = gh.rest.pulls.create(
            ref.owner, ref.repo, title=title, head=branch, base=base, body=body, draft=True
        )
        return _info(answer.parsed_data), False
    except RequestFailed as error:
        if not _drafts_unsupported(error):
            raise
    log.info("draft PRs unsupported; opening a [WIP] PR", extra={"repo": ref.full_name})
    answer = gh.rest.pulls.create(
        ref.owner, ref.repo, title=WIP_PREFIX + title, head=branch, base=base, body=body
    )
    return _info(answer.parsed_data), True


def update_body(gh: GitHubClient, ref: IssueRef, number: int, body: str) -> None:
    gh.rest.pulls.update(ref.owner, ref.repo, number, body=body)


def mark_ready(gh: GitHubClient, pr: PullInfo) -> bool:
    """``markPullRequestReadyForReview`` (REST cannot); True when the PR is no longer draft."""
    data = gh.graphql.request(READY_MUTATION, {"id": pr.node_id})
    result = data.get("markPullRequestReadyForReview") or {}
    return (result.get("pullRequest") or {}).get("isDraft") is False


DRAFT_MUTATION = """
mutation($id: ID!) {
  convertPullRequestToDraft(input: {pullRequestId: $id}) {
    clientMutationId
    pullRequest { isDraft }
  }
}
"""


def convert_to_draft(gh: GitHubClient, node_id: str) -> bool:
    """Back to draft (a review round ended in NOMERGE after an earlier one was ready)."""
    data = gh.graphql.request(DRAFT_MUTATION, {"id": node_id})
    result = data.get("convertPullRequestToDraft") or {}
    return (result.get("pullRequest") or {}).get("isDraft") is True


def drop_wip(gh: GitHubClient, ref: IssueRef, pr: PullInfo) -> None:
    """The ``[WIP]`` fallback's way of being ready: the title loses its prefix."""
    if pr.title.startswith(WIP_PREFIX):
        gh.rest.pulls.update(ref.owner, ref.repo, pr.number, title=pr.title[len(WIP_PREFIX) :])


def request_review(gh: GitHubClient, ref: IssueRef, number: int, user: str) -> None:
    gh.rest.pulls.request_reviewers(ref.owner, ref.repo, number, reviewers=[user])
