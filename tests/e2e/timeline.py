"""What a person would see on GitHub, read back from the fake GitHub's request log.

Every write the bot made (comments, labels, the PR, pushes, check runs, GraphQL) becomes
one line of the issue's timeline, in the order it happened.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.fakes.github import FakeGitHub
from tests.fakes.github_state import Recorded

Describe = Callable[[Recorded], str | None]


def _heading(body: str, more: int = 0) -> str:
    """The comment's first line, and up to `more` further lines of text, indented."""
    lines = [line.strip() for line in body.splitlines()]
    wanted = [
        line.lstrip("# ").strip()[:110]
        for line in lines
        if line and not line.startswith(("<!--", "<", "|", "---"))
    ]
    return "\n      ".join(wanted[: 1 + more])


def _number(recorded: Recorded) -> str:
    parts = recorded.path.strip("/").split("/")
    return parts[4] if len(parts) > 4 else "?"


def _comment(recorded: Recorded) -> str:
    return f"💬 #{_number(recorded)}: {_heading(_body(recorded).get('body', ''), more=2)}"


def _body(recorded: Recorded) -> dict[str, Any]:
    return recorded.body if isinstance(recorded.body, dict) else {}


def _labels(recorded: Recorded) -> str:
    names = _body(recorded).get("labels") or []
    return f"🏷️  #{_number(recorded)}: label {', '.join(map(str, names))}"


def _graphql(recorded: Recorded) -> str:
    query = str(_body(recorded).get("query", ""))
    if "convertPullRequestToDraft" in query:
        return "📝 PR converted back to draft"
    return "✅ PR marked ready for review"


def _check(recorded: Recorded) -> str | None:
    body = _body(recorded)
    if recorded.method == "POST":
        return "🔶 check run agentium/judge: in progress"
    conclusion = body.get("conclusion")
    title = (body.get("output") or {}).get("title", "")
    return f"🔷 check run agentium/judge: {conclusion} ({title})" if conclusion else None


DESCRIBE: dict[str, Describe] = {
    "POST /repos/{owner}/{repo}/issues/{issue_number}/comments": _comment,
    "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}": lambda r: None,
    "POST /repos/{owner}/{repo}/issues/{issue_number}/labels": _labels,
    "DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}": (
        lambda r: f"🏷️  #{_number(r)}: label {r.path.rsplit('/', 1)[-1]} removed"
    ),
    "POST /repos/{owner}/{repo}/issues/{issue_number}/reactions": (
        lambda r: f"👀 #{_number(r)}: reaction {_body(r).get('content', '')}"
    ),
    "POST /repos/{owner}/{repo}/pulls": (
        lambda r: f"📝 PR opened (draft={_body(r).get('draft')}): {_body(r).get('title')}"
    ),
    "PATCH /repos/{owner}/{repo}/pulls/{pull_number}": lambda r: None,
    "POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers": (
        lambda r: f"👤 PR #{_number(r)}: review requested from {_body(r).get('reviewers')}"
    ),
    "POST /repos/{owner}/{repo}/check-runs": _check,
    "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}": _check,
    "POST /graphql": _graphql,
}


def timeline(fake: FakeGitHub) -> list[str]:
    """One line per visible thing the bot did, oldest first."""
    lines: list[str] = []
    for recorded in fake.requests:
        if recorded.status >= 300:
            continue
        if recorded.auth == "git" and recorded.path.endswith("git-receive-pack"):
            lines.append("⬆️  pushed the branch")
            continue
        describe = DESCRIBE.get(recorded.route)
        line = describe(recorded) if describe else None
        if line:
            lines.append(line)
    return lines
