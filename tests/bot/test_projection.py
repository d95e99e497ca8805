"""The receiver stores a delivery's projection in place of its body: the worker must read
exactly the same from it (bot/projection.py against workers/intake/payloads.py)."""

from __future__ import annotations

import json
import typing
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from bot import events, projection
from tests.support import WEBHOOKS
from workers.intake.payloads import Event


def _models(annotation: object, base: type) -> list[type]:
    """The classes deriving from `base` inside an annotation (through unions and lists)."""
    if isinstance(annotation, type) and issubclass(annotation, base):
        return [annotation]
    found: list[type] = []
    for arg in typing.get_args(annotation):
        found += _models(arg, base)
    return found


def _shape(cls: type, base: type) -> dict[str, Any]:
    """Field names, down through the nested classes (pydantic models or msgspec structs)."""
    hints = typing.get_type_hints(cls)
    names = cls.model_fields if base is BaseModel else cls.__struct_fields__  # type: ignore[attr-defined]
    return {name: [_shape(sub, base) for sub in _models(hints[name], base)] for name in names}


def test_the_projection_has_every_field_the_worker_reads() -> None:
    assert _shape(projection.Projection, msgspec.Struct) == _shape(Event, BaseModel)


def read_by_worker(body: bytes) -> Event | str:
    try:
        return Event.model_validate_json(body)
    except ValidationError as exc:
        return f"invalid: {[(e['loc'], e['type']) for e in exc.errors()]}"


def stored(body: bytes) -> bytes | None:
    """What the receiver stores in the body's place, None if it stores the body."""
    try:
        return projection.encode(projection.decode(body))
    except msgspec.MsgspecError:
        return None


@pytest.mark.parametrize("path", sorted(WEBHOOKS.glob("*/*.json")), ids=lambda p: p.stem)
def test_every_recorded_payload_is_projected_and_read_alike(path: Any) -> None:
    body = json.dumps(json.loads(path.read_bytes()), separators=(",", ":")).encode()
    kept = stored(body)
    assert kept is not None, "a real payload falls back to being stored whole"
    assert read_by_worker(kept) == read_by_worker(body)
    if path.parent.name != "ping":
        assert len(kept) * 4 < len(body)  # the point of it


def test_the_bench_delivery_keeps_its_long_issue_body() -> None:
    body = (WEBHOOKS / "issues" / "labeled.payload.json").read_bytes()
    payload = json.loads(body)
    payload["issue"]["body"] = "line\n" * 2000 + 'a "quoted" \\ é ✓'
    raw = json.dumps(payload).encode()
    kept = stored(raw)
    assert kept is not None
    read = read_by_worker(kept)
    assert isinstance(read, Event) and read.issue is not None
    assert read.issue.body == payload["issue"]["body"]
    assert read == read_by_worker(raw)


scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
anything = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(), inner)
)


def obj(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """An object with any of `fields` (and one nobody reads), or now and then anything."""
    return st.fixed_dictionaries({}, optional={**fields, "other": anything}) | anything


def text(*samples: str) -> st.SearchStrategy[Any]:
    return st.sampled_from(samples) | scalars


user = obj(login=text("octocat"), id=scalars, type=text("User", "Bot"))
label = obj(name=text("agentium", "bug"))
payloads = st.fixed_dictionaries(
    {},
    optional={
        "action": text("labeled", "created", "closed", "submitted"),
        "sender": user,
        "repository": obj(full_name=text("o/r"), id=scalars, default_branch=text("main")),
        "installation": obj(id=scalars),
        "issue": obj(
            number=scalars,
            title=text("Add a flag"),
            body=text("Steps\n1. run"),
            labels=st.lists(label, max_size=2) | scalars,
            pull_request=st.dictionaries(st.text(), scalars) | scalars,
        ),
        "pull_request": obj(number=scalars, merged=scalars),
        "label": label,
        "assignee": user,
        "comment": obj(
            id=scalars, body=text("/agentium stop"), user=user, path=text("a.py"), line=scalars
        ),
        "review": obj(id=scalars, state=text("approved"), body=text("LGTM")),
        "repositories_added": anything,
    },
)


@settings(max_examples=400, deadline=None)
@given(payload=payloads, ascii_only=st.booleans())
def test_any_payload_is_read_alike_from_what_is_stored(payload: dict, ascii_only: bool) -> None:
    body = json.dumps(payload, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    kept = stored(body)
    if kept is not None:
        assert read_by_worker(kept) == read_by_worker(body)


@pytest.mark.parametrize(
    "body",
    [
        b'{"action":"labeled","action":"closed","sender":{"login":"a"}}',  # the last one wins
        b'{"action":"labeled","sender":{"login":"a","type":null}}',  # null is not absent
        b'{"action":"labeled","sender":{"login":"a"},"issue":{"number":1,"title":null}}',
        b'{"action":"labeled","sender":{"login":"a"},"issue":{"number":1,"labels":[{}]}}',
        b'{"action":"closed","sender":{"login":"a"},"pull_request":{"number":2,"merged":"yes"}}',
        b'{"action":"labeled", "sender" : {"login":"a\\u00e9\\ud83d\\ude00"}, "label":{"name":7}}',
    ],
)
def test_unusual_payloads_are_read_alike(body: bytes) -> None:
    kept = stored(body)
    assert kept is not None
    assert read_by_worker(kept) == read_by_worker(body)


def test_a_payload_that_does_not_fit_is_stored_whole() -> None:
    body = b'{"action":"labeled","sender":"octocat","issue":{"number":1}}'
    classified, read = events.read("issues", body)
    assert classified.decision is events.Decision.ENQUEUED and read is None
