"""The bot's comments: posted once per marker, or (the status comment) edited in place.

Idempotency: the comment id is kept in :class:`TaskMarks` under the marker's name. Before
creating, a "pending" mark is written; a job that died between the POST and saving the id
finds it pending next time and looks the comment up by its marker instead of posting again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from githubkit.exception import RequestFailed

from config import keys
from workers.github.bodies import fit, marker
from workers.github.client import GitHubClient
from workers.github.marks import TaskMarks
from workers.github.refs import IssueRef

PENDING = "pending"
PAGE_SIZE = 100
POINTER = "The full text is kept in the task's state directory on the bot's host."


@dataclass(frozen=True)
class Posted:
    id: int
    html_url: str
    created: bool


def find_marked(gh: GitHubClient, ref: IssueRef, name: str) -> Posted | None:
    """The newest comment on the issue or PR whose body carries ``marker(name)``."""
    tag = marker(name)
    found: Posted | None = None
    page = 1
    while True:
        answer = gh.rest.issues.list_comments(
            ref.owner, ref.repo, ref.number, per_page=PAGE_SIZE, page=page
        )
        comments: list[Any] = cast(list[Any], answer.parsed_data)
        for comment in comments:
            if isinstance(comment.body, str) and tag in comment.body:
                found = Posted(comment.id, comment.html_url, created=False)
        if len(comments) < PAGE_SIZE:
            return found
        page += 1


def _known(gh: GitHubClient, ref: IssueRef, name: str, marks: TaskMarks) -> Posted | None:
    field = keys.mark_comment(ref.number, name)
    value = marks.get(field)
    if value is None:
        return None
    if value != PENDING:
        comment_id, _, url = value.partition(" ")
        return Posted(int(comment_id), url, created=False)
    found = find_marked(gh, ref, name)
    if found is not None:
        marks.set(field, f"{found.id} {found.html_url}")
    return found


def post_once(gh: GitHubClient, ref: IssueRef, name: str, body: str, marks: TaskMarks) -> Posted:
    """Create the comment named ``name`` unless it exists already."""
    known = _known(gh, ref, name, marks)
    if known is not None:
        return known
    field = keys.mark_comment(ref.number, name)
    marks.set(field, PENDING)
    answer = gh.rest.issues.create_comment(ref.owner, ref.repo, ref.number, body=fit(body, POINTER))
    comment = answer.parsed_data
    marks.set(field, f"{comment.id} {comment.html_url}")
    return Posted(comment.id, comment.html_url, created=True)


def upsert(gh: GitHubClient, ref: IssueRef, name: str, body: str, marks: TaskMarks) -> Posted:
    """Edit the comment named ``name`` in place (found by marker), or create it.

    The first call of a task looks for an older comment with the marker (another run, a
    lost Redis); an edit whose body did not change is not sent.
    """
    field = keys.mark_comment(ref.number, name)
    text = fit(body, POINTER)
    known = _known(gh, ref, name, marks)
    if known is None and marks.get(f"searched:{ref.number}:{name}") is None:
        known = find_marked(gh, ref, name)
        marks.set(f"searched:{ref.number}:{name}", 1)
    if known is None:
        posted = post_once(gh, ref, name, body, marks)
        marks.wrote(field, text)
        return posted
    if marks.unchanged(field, text):
        return known
    try:
        gh.rest.issues.update_comment(ref.owner, ref.repo, known.id, body=text)
    except RequestFailed as error:
        if error.response.status_code != 404:
            raise
        marks.forget(field)  # someone deleted it: post a new one
        posted = post_once(gh, ref, name, body, marks)
        marks.wrote(field, text)
        return posted
    marks.set(field, f"{known.id} {known.html_url}")
    marks.wrote(field, text)
    return known
