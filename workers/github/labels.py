"""The bot's labels: created in the repository once (with colour and description), then set."""

from __future__ import annotations

from githubkit.exception import RequestFailed
from redis import Redis

from config import keys
from workers.controller.effects import BLOCKED_LABEL
from workers.github.client import GitHubClient
from workers.github.refs import IssueRef

WORKING = "agentium:working"
BLOCKED = BLOCKED_LABEL
DONE = "agentium:done"

LABELS: dict[str, tuple[str, str]] = {
    WORKING: ("fbca04", "agentium is working on this issue"),
    BLOCKED: ("d93f0b", "agentium stopped and needs a human"),
    DONE: ("0e8a16", "agentium finished its work on this issue"),
}


def ensure_label(gh: GitHubClient, redis: Redis, ref: IssueRef, name: str) -> None:
    """Create the label in the repository unless it exists (remembered in Redis)."""
    if redis.sismember(keys.repo_labels_known(ref.full_name), name):
        return
    color, description = LABELS.get(name, ("ededed", ""))
    try:
        gh.rest.issues.create_label(
            ref.owner, ref.repo, name=name, color=color, description=description
        )
    except RequestFailed as error:
        if error.response.status_code != 422:  # 422 already_exists
            raise
    redis.sadd(keys.repo_labels_known(ref.full_name), name)


def add_label(gh: GitHubClient, redis: Redis, ref: IssueRef, name: str) -> None:
    ensure_label(gh, redis, ref, name)
    gh.rest.issues.add_labels(ref.owner, ref.repo, ref.number, labels=[name])


def remove_label(gh: GitHubClient, ref: IssueRef, name: str) -> None:
    try:
        gh.rest.issues.remove_label(ref.owner, ref.repo, ref.number, name)
    except RequestFailed as error:
        if error.response.status_code != 404:  # not on the issue: nothing to do
            raise
