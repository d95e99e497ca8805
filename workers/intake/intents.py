"""What a delivery means for the bot: start, cancel, forward to a task, or nothing."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from workers.intake.payloads import Event
from workers.tasks.inbox import (
    CommandRequest,
    InboxItem,
    IssueReply,
    PullRequestClosed,
    ReviewComment,
    ReviewSubmitted,
)

COMMAND = re.compile(r"^\s*/agentium[ \t]+([a-z]+)\b(.*)$", re.MULTILINE)
MAX_REPLY_CHARS = 20_000  # of a reply kept in the inbox (the worker gets less)


@dataclass(frozen=True, slots=True)
class StartTask:
    repo: str
    issue: int
    installation_id: int | None
    user: str
    title: str = ""
    body: str = ""


@dataclass(frozen=True, slots=True)
class Cancel:
    repo: str
    issue: int
    reason: str
    user: str = ""


@dataclass(frozen=True, slots=True)
class Forward:
    """A command or review for the task of an issue (`issue`) or of a PR (`pr`)."""

    repo: str
    item: InboxItem
    issue: int | None = None
    pr: int | None = None


@dataclass(frozen=True, slots=True)
class InstallationChange:
    installation_id: int
    action: str
    account: str | None


@dataclass(frozen=True, slots=True)
class Ignore:
    reason: str


Intent = StartTask | Cancel | Forward | InstallationChange | Ignore


@dataclass(frozen=True, slots=True)
class Rules:
    trigger_label: str
    bot_login: str | None
    commands: frozenset[str]
    # The trigger label of the event's repository when it may differ from the default.
    repo_label: Callable[[Event], str] | None = None

    def for_event(self, event_name: str, event: Event) -> Rules:
        """These rules with the repository's own trigger label, asked only when it matters:
        a label event about another label, or an issue reopened with other labels only."""
        if self.repo_label is None or event_name != "issues" or not self._other_label(event):
            return self
        return replace(self, trigger_label=self.repo_label(event))

    def _other_label(self, event: Event) -> bool:
        if event.label is not None:
            return event.label.name != self.trigger_label
        if event.action == "reopened" and event.issue is not None:
            names = {label.name for label in event.issue.labels}
            return bool(names) and self.trigger_label not in names
        return False


def decide(event_name: str, event: Event, rules: Rules) -> Intent:
    if event.sender.type == "Bot" or event.sender.login == rules.bot_login:
        return Ignore("sent by a bot")
    rules = rules.for_event(event_name, event)
    if event_name.startswith("installation"):
        return _installation(event)
    if event.repository is None:
        return Ignore("no repository")
    handler = _HANDLERS.get(event_name)
    return handler(event, event.repository.full_name, rules) if handler else Ignore("event")


def _issues(event: Event, repo: str, rules: Rules) -> Intent:
    issue = event.issue
    if issue is None or issue.pull_request is not None:
        return Ignore("not an issue")
    labelled = event.label is not None and event.label.name == rules.trigger_label
    assigned = event.assignee is not None and event.assignee.login == rules.bot_login
    user = event.sender.login
    start = StartTask(
        repo, issue.number, _installation_id(event), user, issue.title, issue.body or ""
    )
    match event.action:
        case "labeled" if labelled:
            return start
        case "assigned" if assigned:
            return start
        case "reopened" if any(label.name == rules.trigger_label for label in issue.labels):
            return start
        case "unlabeled" if labelled:
            reason = f"label '{rules.trigger_label}' removed by {user}"
            return Cancel(repo, issue.number, reason, user)
        case "unassigned" if assigned:
            return Cancel(repo, issue.number, f"bot unassigned by {user}", user)
        case "closed":
            return Cancel(repo, issue.number, f"issue closed by {user}", user)
    return Ignore(f"issues.{event.action} does not concern the bot")


def _issue_comment(event: Event, repo: str, rules: Rules) -> Intent:
    if event.issue is None or event.comment is None:
        return Ignore("no comment")
    found = COMMAND.search(event.comment.body)
    if found is None:
        return _reply(event, repo)
    name, rest = found.group(1), found.group(2).strip()
    if name not in rules.commands:
        return Ignore(f"unknown command '{name}'")
    item = CommandRequest(
        command=name, args=rest, user=event.sender.login, comment=event.comment.id
    )
    number = event.issue.number
    if event.issue.pull_request is not None:
        return Forward(repo, item, pr=number)
    return Forward(repo, item, issue=number)


def _reply(event: Event, repo: str) -> Intent:
    """A plain comment on an issue: an answer if the issue's task waits for one (the
    intake's apply step checks; a comment on a pull request never is)."""
    assert event.issue is not None and event.comment is not None
    if event.issue.pull_request is not None or not event.comment.body.strip():
        return Ignore("no command")
    body = event.comment.body[:MAX_REPLY_CHARS]
    item = IssueReply(body=body, user=event.sender.login, comment=event.comment.id)
    return Forward(repo, item, issue=event.issue.number)


def _review(event: Event, repo: str, rules: Rules) -> Intent:
    if event.pull_request is None or event.review is None:
        return Ignore("no review")
    item = ReviewSubmitted(
        review=event.review.id,
        state=event.review.state,
        body=event.review.body or "",
        user=event.sender.login,
    )
    return Forward(repo, item, pr=event.pull_request.number)


def _review_comment(event: Event, repo: str, rules: Rules) -> Intent:
    if event.pull_request is None or event.comment is None:
        return Ignore("no review comment")
    comment = event.comment
    item = ReviewComment(
        comment=comment.id,
        body=comment.body,
        path=comment.path,
        line=comment.line,
        user=event.sender.login,
    )
    return Forward(repo, item, pr=event.pull_request.number)


def _pull_request(event: Event, repo: str, rules: Rules) -> Intent:
    if event.pull_request is None or event.action != "closed":
        return Ignore("pull_request action")
    item = PullRequestClosed(merged=bool(event.pull_request.merged), user=event.sender.login)
    return Forward(repo, item, pr=event.pull_request.number)


def _installation(event: Event) -> Intent:
    if event.installation is None:
        return Ignore("no installation")
    return InstallationChange(event.installation.id, event.action, None)


def _installation_id(event: Event) -> int | None:
    return event.installation.id if event.installation else None


_HANDLERS = {
    "issues": _issues,
    "issue_comment": _issue_comment,
    "pull_request_review": _review,
    "pull_request_review_comment": _review_comment,
    "pull_request": _pull_request,
}
