"""The few webhook fields the bot reads, as lenient typed models.

githubkit's generated webhook models follow today's OpenAPI description and reject
real payloads recorded a little earlier (e.g. labels without `archived_at`), so the
bot validates only what it uses; unknown fields are ignored. The receiver stores only
these fields of a delivery (``bot.projection``, kept alike by a test): a field read here
must be added there too.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class User(_Lenient):
    login: str
    id: int | None = None
    type: str = "User"


class Label(_Lenient):
    name: str


class Repository(_Lenient):
    full_name: str
    id: int | None = None
    default_branch: str | None = None


class Installation(_Lenient):
    id: int


class Issue(_Lenient):
    number: int
    title: str = ""
    body: str | None = None
    labels: list[Label] = []
    pull_request: dict[str, object] | None = None  # present when the "issue" is a PR


class PullRequest(_Lenient):
    number: int
    merged: bool | None = None


class Comment(_Lenient):
    id: int
    body: str = ""
    user: User | None = None
    path: str | None = None  # review comments: the file and line they are about
    line: int | None = None


class Review(_Lenient):
    id: int
    state: str
    body: str | None = None


class Event(_Lenient):
    """The union of the fields the handled events carry; absent ones are None."""

    action: str
    sender: User
    repository: Repository | None = None
    installation: Installation | None = None
    issue: Issue | None = None
    pull_request: PullRequest | None = None
    label: Label | None = None
    assignee: User | None = None
    comment: Comment | None = None
    review: Review | None = None
