"""Which GitHub events concern the bot: the receiver's routing table.

`app.yml`'s `default_events` is kept equal to `EVENT_ACTIONS`' keys by a test.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import msgspec
from msgspec import UNSET

from bot import projection
from bot.projection import Projection

# event -> the actions the bot acts on (None: every action).
EVENT_ACTIONS: dict[str, frozenset[str] | None] = {
    "issues": frozenset({"labeled", "unlabeled", "assigned", "unassigned", "closed", "reopened"}),
    "issue_comment": frozenset({"created"}),
    "pull_request": frozenset({"closed"}),
    "pull_request_review": frozenset({"submitted"}),
    "pull_request_review_comment": frozenset({"created"}),
    "installation": None,
    "installation_repositories": None,
}

COMMAND_PATTERN = re.compile(r"^\s*/agentium\b", re.MULTILINE)


class Decision(StrEnum):
    ENQUEUED = "enqueued"
    DUPLICATE = "duplicate"
    PING = "ping"
    IGNORED_EVENT = "ignored:event"
    IGNORED_ACTION = "ignored:action"
    IGNORED_BOT = "ignored:bot_sender"
    IGNORED_NO_COMMAND = "ignored:no_command"


class MalformedPayload(ValueError):
    """The body is not a JSON object with the fields the event must have."""


# Made for every delivery: slots but not frozen, which makes building one ~3x cheaper
# (a frozen dataclass sets each field through object.__setattr__). Never mutated.
@dataclass(slots=True)
class Classified:
    decision: Decision
    action: str | None = None
    repo: str | None = None
    issue: int | None = None


def read(event: str, body: bytes) -> tuple[Classified, Projection | None]:
    """Decide from the event name first (no parse for ignored events), then the payload;
    with the decision, what the bot reads of the payload (``bot.projection``).

    Only those fields are decoded, the rest of the body is skipped unbuilt. A payload
    whose fields are not of the usual types is decided by the full parse instead, so both
    paths decide alike, and has no projection (None): it is stored whole.
    """
    if event not in EVENT_ACTIONS:
        return Classified(Decision.IGNORED_EVENT), None
    try:
        if not body.isascii():
            body.decode("utf-8", "surrogatepass")  # what json.loads accepts; msgspec skips
        projected = projection.decode(body)
    except (msgspec.MsgspecError, RecursionError, UnicodeDecodeError):
        return _decide(event, _from_payload(_load_object(body))), None
    return _decide(event, _routed(projected)), projected


@dataclass(slots=True)
class _Fields:
    action: object
    repo: str | None
    issue: int | None
    sender_is_bot: bool
    comment: str
    on_pull_request: bool = False  # an issue_comment on a pull request


def _routed(payload: Projection) -> _Fields:
    """The fields the decision reads (an UNSET field, like a null, is not there)."""
    repo, issue, sender, comment = (
        payload.repository,
        payload.issue,
        payload.sender,
        payload.comment,
    )
    numbers = [item.number for item in (issue, payload.pull_request) if item]
    body = comment.body if isinstance(comment, projection.Comment) else None
    return _Fields(
        action=payload.action,
        repo=_str(repo.full_name) if isinstance(repo, projection.Repository) else None,
        issue=next((number for number in numbers if isinstance(number, int)), None),
        sender_is_bot=isinstance(sender, projection.User) and sender.type == "Bot",
        comment=_str(body) or "",
        on_pull_request=isinstance(issue, projection.Issue)
        and issue.pull_request not in (None, UNSET),
    )


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _decide(event: str, fields: _Fields) -> Classified:
    action = fields.action
    if not isinstance(action, str):
        raise MalformedPayload("payload has no 'action'")
    found = Classified(Decision.ENQUEUED, action, fields.repo, fields.issue)
    allowed = EVENT_ACTIONS[event]
    if allowed is not None and action not in allowed:
        return _with(found, Decision.IGNORED_ACTION)
    if fields.sender_is_bot:
        return _with(found, Decision.IGNORED_BOT)
    # On an issue, a plain comment may answer the recovery ladder's question (the worker's
    # intake forwards it only while its task waits for one); on a PR it is nothing for us.
    plain = event == "issue_comment" and not COMMAND_PATTERN.search(fields.comment)
    if plain and (fields.on_pull_request or not fields.comment.strip()):
        return _with(found, Decision.IGNORED_NO_COMMAND)
    return found


def _from_payload(payload: dict[str, Any]) -> _Fields:
    return _Fields(
        action=payload.get("action"),
        repo=_repo(payload),
        issue=_issue_number(payload),
        sender_is_bot=_sender_is_bot(payload),
        comment=_comment_body(payload),
        on_pull_request=_on_pull_request(payload),
    )


def _on_pull_request(payload: dict[str, Any]) -> bool:
    issue = payload.get("issue")
    return isinstance(issue, dict) and issue.get("pull_request") is not None


def _with(found: Classified, decision: Decision) -> Classified:
    return Classified(decision, found.action, found.repo, found.issue)


def _load_object(body: bytes) -> dict[str, Any]:
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise MalformedPayload("body is not valid JSON") from exc
    if not isinstance(payload, dict):
        raise MalformedPayload("body is not a JSON object")
    return payload


def _sender_is_bot(payload: dict[str, Any]) -> bool:
    sender = payload.get("sender")
    return isinstance(sender, dict) and sender.get("type") == "Bot"


def _repo(payload: dict[str, Any]) -> str | None:
    repo = payload.get("repository")
    name = repo.get("full_name") if isinstance(repo, dict) else None
    return name if isinstance(name, str) else None


def _issue_number(payload: dict[str, Any]) -> int | None:
    for key in ("issue", "pull_request"):
        item = payload.get(key)
        if isinstance(item, dict) and isinstance(item.get("number"), int):
            return int(item["number"])
    return None


def _comment_body(payload: dict[str, Any]) -> str:
    comment = payload.get("comment")
    body = comment.get("body") if isinstance(comment, dict) else None
    return body if isinstance(body, str) else ""
