"""In-memory state of the fake GitHub: repositories, issues, comments, PRs, check runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Comment:
    id: int
    number: int
    body: str
    author: str
    created: float
    updated: float


@dataclass
class Pull:
    number: int
    node_id: str
    title: str
    body: str
    head: str
    base: str
    head_sha: str
    draft: bool
    author: str
    state: str = "open"
    reviewers: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__


@dataclass
class Repo:
    full_name: str
    private: bool = False
    drafts: bool = True  # False: a private repo on a plan without draft PRs (422)
    default_branch: str = "main"
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)
    comments: dict[int, Comment] = field(default_factory=dict)
    labels: dict[str, dict[str, str]] = field(default_factory=dict)
    issue_labels: dict[int, list[str]] = field(default_factory=dict)
    pulls: dict[int, Pull] = field(default_factory=dict)
    check_runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    reactions: dict[int, list[tuple[str, str]]] = field(default_factory=dict)  # (user, content)
    roles: dict[str, str] = field(default_factory=dict)

    def next_number(self) -> int:
        return max([0, *self.issues, *self.pulls]) + 1


@dataclass
class Fault:
    """Answer the next ``times`` matching requests with ``status`` (0: just be slow)."""

    status: int
    times: int = 1
    method: str | None = None
    path: str | None = None  # a substring of the path
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    message: str = "fault injected by the test"

    def matches(self, method: str, path: str) -> bool:
        if self.times <= 0:
            return False
        if self.method is not None and self.method != method:
            return False
        return self.path is None or self.path in path


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    route: str
    query: str
    status: int
    auth: str  # app, installation, git, none
    body: Any
    peer: int | None = None  # the client's port: which connection the request came on
