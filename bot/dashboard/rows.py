"""What the pages show, computed from the read model (pure; the templates only print)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote

from bot.dashboard.model import TaskView, age_seconds, describe_age
from bot.dashboard.reader import Marks

DASH = "\u2014"


def task_path(repo: str, issue: int) -> str:
    """The task page: ``/tasks/{owner}/{repo}/{number}``."""
    owner, _, name = repo.partition("/")
    return f"/tasks/{quote(owner, safe='')}/{quote(name, safe='')}/{issue}"


def safe_url(url: str | None) -> str | None:
    """Only http(s) links are rendered (a stored value is data, not trusted markup)."""
    return url if url and url.startswith(("https://", "http://")) else None


@dataclass(frozen=True)
class Links:
    """Addresses on GitHub (or GHES): ``web_url`` is e.g. ``https://github.com``."""

    web_url: str

    def issue(self, task: TaskView) -> str:
        return f"{self.web_url}/{task.repo}/issues/{task.issue}"

    def pr(self, task: TaskView, marks: Marks | None = None) -> str | None:
        if marks is not None and safe_url(marks.pr_url):
            return marks.pr_url
        if task.pr_number is None:
            return None
        return f"{self.web_url}/{task.repo}/pull/{task.pr_number}"


@dataclass(frozen=True)
class Row:
    key: str
    repo: str
    issue: int
    title: str
    task_url: str
    issue_url: str
    phase: str
    iteration: str
    path: str
    verdict: str
    pr_number: int | None
    pr_url: str | None
    cost: str
    age: str
    updated: str
    status: str
    nomerge: bool


def iteration_text(task: TaskView) -> str:
    flow = task.workflow
    if not flow.iteration:
        return DASH
    limit = task.iteration_limit
    return f"{flow.iteration}/{limit}" if limit else str(flow.iteration)


def money(value: float) -> str:
    return f"${value:,.2f}"


def thousands(value: int) -> str:
    return f"{value:,}"


def stamp(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC") if moment else DASH


def row(task: TaskView, links: Links, now: datetime) -> Row:
    return Row(
        key=task.key,
        repo=task.repo,
        issue=task.issue,
        title=task.issue_title,
        task_url=task_path(task.repo, task.issue),
        issue_url=links.issue(task),
        phase=task.workflow.phase,
        iteration=iteration_text(task),
        path=task.workflow.path or DASH,
        verdict=task.last_verdict or DASH,
        pr_number=task.pr_number,
        pr_url=links.pr(task),
        cost=money(task.workflow.spend.cost_usd),
        age=describe_age(age_seconds(task.created_at, now)),
        updated=stamp(task.updated_at),
        status=task.status,
        nomerge=task.nomerge,
    )


@dataclass(frozen=True)
class Paging:
    page: int
    pages: int
    total: int
    size: int

    @property
    def start(self) -> int:
        return (self.page - 1) * self.size

    @property
    def previous(self) -> int | None:
        return self.page - 1 if self.page > 1 else None

    @property
    def next(self) -> int | None:
        return self.page + 1 if self.page < self.pages else None


def paging(requested: str | None, total: int, size: int) -> Paging:
    """The page asked for (1-based), kept within the pages there are."""
    pages = max(1, -(-total // size))
    number = int(requested) if requested and requested.isdigit() else 1
    return Paging(min(max(number, 1), pages), pages, total, size)
