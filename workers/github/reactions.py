"""The 👀 reaction that says the bot has seen a trigger (GitHub answers 200 if it exists)."""

from __future__ import annotations

from workers.github.client import GitHubClient
from workers.github.refs import IssueRef


def add_eyes(gh: GitHubClient, ref: IssueRef) -> None:
    gh.rest.reactions.create_for_issue(ref.owner, ref.repo, ref.number, content="eyes")


def add_eyes_to_comment(gh: GitHubClient, ref: IssueRef, comment_id: int) -> None:
    gh.rest.reactions.create_for_issue_comment(ref.owner, ref.repo, comment_id, content="eyes")
