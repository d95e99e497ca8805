"""What of a payload the bot reads: decoded once on the request path, stored in its place.

A delivery's payload is mostly fields nobody reads (URLs, the repository's settings, every
user's avatar). The receiver decodes the fields the router and the worker's handler read
(``workers.intake.payloads.Event``) into :class:`Projection` and stores that, encoded back
to JSON, instead of the whole body: for a typical ``issues`` delivery it is a tenth of the
bytes Redis must take in, append to its file and hand to the worker.

Nothing the worker reads changes. Every field keeps its JSON value as sent, or stays absent
when it was: values the router needs are decoded (``str``, ``int``...), the others are kept
as raw JSON (:class:`msgspec.Raw`, copied out unread), and every field defaults to
``UNSET``, which encodes as absent, so a ``null`` stays ``null``. A payload whose shape
does not fit (an object where a string was expected, say) is not projected: the receiver
stores its body whole, and the worker reads it as before. A test keeps these classes and
the worker's models field for field alike, and checks the worker reads the same from the
projection as from the body of every recorded payload.
"""

from __future__ import annotations

from msgspec import UNSET, Raw, Struct, UnsetType, json


class _Read(Struct):
    """Fields as sent, or ``UNSET`` (encoded as absent) where they were not."""


class User(_Read):
    login: Raw | UnsetType = UNSET
    id: Raw | UnsetType = UNSET
    type: str | UnsetType | None = UNSET  # the router drops deliveries sent by bots


class Label(_Read):
    name: Raw | UnsetType = UNSET


class Repository(_Read):
    full_name: str | UnsetType | None = UNSET
    id: Raw | UnsetType = UNSET
    default_branch: Raw | UnsetType = UNSET


class Installation(_Read):
    id: Raw | UnsetType = UNSET


class Issue(_Read):
    number: int | UnsetType | None = UNSET
    title: Raw | UnsetType = UNSET
    body: Raw | UnsetType = UNSET
    labels: list[Label] | UnsetType = UNSET
    pull_request: dict[str, object] | UnsetType | None = UNSET  # set when it is a PR


class PullRequest(_Read):
    number: int | UnsetType | None = UNSET
    merged: Raw | UnsetType = UNSET


class Comment(_Read):
    id: Raw | UnsetType = UNSET
    body: str | UnsetType | None = UNSET  # the router looks for a command in it
    user: User | UnsetType | None = UNSET
    path: Raw | UnsetType = UNSET
    line: Raw | UnsetType = UNSET


class Review(_Read):
    id: Raw | UnsetType = UNSET
    state: Raw | UnsetType = UNSET
    body: Raw | UnsetType = UNSET


class Projection(_Read):
    """The payload's fields the bot reads; the rest of the body is skipped unbuilt."""

    action: str | UnsetType | None = UNSET
    sender: User | UnsetType | None = UNSET
    repository: Repository | UnsetType | None = UNSET
    installation: Installation | UnsetType | None = UNSET
    issue: Issue | UnsetType | None = UNSET
    pull_request: PullRequest | UnsetType | None = UNSET
    label: Label | UnsetType | None = UNSET
    assignee: User | UnsetType | None = UNSET
    comment: Comment | UnsetType | None = UNSET
    review: Review | UnsetType | None = UNSET


decode = json.Decoder(Projection).decode
encode = json.Encoder().encode
