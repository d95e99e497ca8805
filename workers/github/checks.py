"""The ``agentium/judge`` Check Run on the PR's head commit, for branch protection.

in_progress while the task runs; at the end success (ready), action_required (NOMERGE,
with the reason) or failure (BLOCKED). A push makes a new head commit: its check run is
created and the previous one is closed as neutral ("superseded").
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from githubkit.utils import UNSET

from workers.github.client import GitHubClient
from workers.github.refs import IssueRef

CHECK_NAME = "agentium/judge"


class Conclusion(StrEnum):
    SUCCESS = "success"
    ACTION_REQUIRED = "action_required"
    FAILURE = "failure"
    NEUTRAL = "neutral"


def start(gh: GitHubClient, ref: IssueRef, head_sha: str, summary: str) -> int:
    answer = gh.rest.checks.create(
        ref.owner,
        ref.repo,
        name=CHECK_NAME,
        head_sha=head_sha,
        status="in_progress",
        output={"title": "agentium is working", "summary": summary},
    )
    return answer.parsed_data.id


def finish(
    gh: GitHubClient,
    ref: IssueRef,
    check_run_id: int,
    conclusion: Conclusion,
    *,
    title: str,
    summary: str,
    details_url: str | None = None,
) -> None:
    gh.rest.checks.update(
        ref.owner,
        ref.repo,
        check_run_id,
        conclusion=_CONCLUSIONS[conclusion],
        details_url=details_url or UNSET,
        output={"title": title, "summary": summary[:65_535]},
    )


_CONCLUSIONS: dict[Conclusion, Literal["success", "action_required", "failure", "neutral"]] = {
    Conclusion.SUCCESS: "success",
    Conclusion.ACTION_REQUIRED: "action_required",
    Conclusion.FAILURE: "failure",
    Conclusion.NEUTRAL: "neutral",
}
