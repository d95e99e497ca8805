"""Who may trigger, command or review: users with write, maintain or admin permission.

Everyone else gets one polite comment per issue (found again by its marker) and nothing else.
"""

from __future__ import annotations

from githubkit.exception import RequestFailed

from workers.github.bodies import refusal_body
from workers.github.client import GitHubClient
from workers.github.comments import post_once
from workers.github.marks import TaskMarks
from workers.github.refs import IssueRef

ALLOWED_ROLES = frozenset({"admin", "maintain", "write"})


def can_write(gh: GitHubClient, ref: IssueRef, user: str) -> bool:
    try:
        answer = gh.rest.repos.get_collaborator_permission_level(ref.owner, ref.repo, user)
    except RequestFailed as error:
        if error.response.status_code == 404:  # not a collaborator
            return False
        raise
    granted = answer.parsed_data
    # ``permission`` folds maintain into write; ``role_name`` names custom roles too.
    return granted.permission in ALLOWED_ROLES or granted.role_name in ALLOWED_ROLES


def refuse(gh: GitHubClient, ref: IssueRef, user: str, marks: TaskMarks) -> None:
    """One polite comment per user and issue, however often they try."""
    name = f"refused:{user.lower()}"
    post_once(gh, ref, name, refusal_body(name, user), marks)


def admit(gh: GitHubClient, ref: IssueRef, user: str, marks: TaskMarks) -> bool:
    """True if ``user`` may act; otherwise refuse politely (once) and return False."""
    if can_write(gh, ref, user):
        return True
    refuse(gh, ref, user, marks)
    return False
