"""events.read decodes only the fields the bot reads; it must decide as the full parse does."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import events
from bot.events import Classified, MalformedPayload
from tests.support import WEBHOOKS

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
field_values = scalars | st.lists(scalars, max_size=2) | st.dictionaries(st.text(), scalars)
routed = st.fixed_dictionaries(
    {},
    optional={
        "action": st.sampled_from(["labeled", "created", "closed", "submitted", "x"]) | scalars,
        "sender": st.fixed_dictionaries({}, optional={"type": st.sampled_from(["Bot", "User"])})
        | field_values,
        "repository": st.fixed_dictionaries({}, optional={"full_name": st.text() | scalars})
        | field_values,
        "issue": st.fixed_dictionaries({}, optional={"number": scalars}) | field_values,
        "pull_request": st.fixed_dictionaries({}, optional={"number": scalars}) | field_values,
        "comment": st.fixed_dictionaries(
            {}, optional={"body": st.sampled_from(["/agentium stop", " hi\n/agentium"]) | scalars}
        )
        | field_values,
        "noise": st.text(),
    },
)
EVENTS = sorted(events.EVENT_ACTIONS)


def classify(event: str, body: bytes) -> Classified:
    """The decision as the receiver makes it."""
    return events.read(event, body)[0]


def full_parse(event: str, body: bytes) -> Classified:
    """The decision from the whole payload, as json.loads reads it."""
    if event not in events.EVENT_ACTIONS:
        return Classified(events.Decision.IGNORED_EVENT)
    return events._decide(event, events._from_payload(events._load_object(body)))


def outcome(decide: object, event: str, body: bytes) -> object:
    try:
        return decide(event, body)  # type: ignore[operator]
    except MalformedPayload:
        return "malformed"


@settings(max_examples=500, deadline=None)
@given(event=st.sampled_from(EVENTS), payload=routed, ascii_only=st.booleans())
def test_fast_and_full_parse_decide_alike(event: str, payload: dict, ascii_only: bool) -> None:
    body = json.dumps(payload, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    assert outcome(classify, event, body) == outcome(full_parse, event, body)


@pytest.mark.parametrize(
    "body",
    [
        b'{"action":"labeled","x":"\xff\xfe"}',  # not UTF-8: json.loads refuses it
        b'{"action":"labeled","x":"\xed\xa0\x80"}',  # an encoded surrogate: accepted
        b'\xef\xbb\xbf{"action":"labeled"}',  # a byte-order mark
        b'{"action":"labeled","x":NaN}',
        b'{"action":"labeled","x":"\\ud800"}',
        b'{"action":"a","action":"labeled"}',  # the last one wins
        b'{"action":"labeled","issue":{"number":true}}',
        b'{"action":"labeled","issue":{"number":1.0},"pull_request":{"number":7}}',
        b'{"action":"labeled","sender":"Bot"}',
        b'{"action":"labeled"} trailing',
        b'[{"action":"labeled"}]',
        b'{"action":"labeled","deep":' + b"[" * 950 + b"]" * 950 + b"}",
        '{"action":"labeled","issue":{"number":5},"x":"é ✓"}'.encode("utf-16"),
        b'{"action":"created","issue":{"number":3,"pull_request":{"url":"u"}},"comment":{"body":"hi"}}',
        b'{"action":"created","issue":{"number":3,"pull_request":"u"},"comment":{"body":"hi"}}',
        b'{"action":"created","issue":{"number":3,"pull_request":null},"comment":{"body":"hi"}}',
    ],
)
def test_unusual_bodies_decide_alike(body: bytes) -> None:
    for event in ("issues", "issue_comment"):
        assert outcome(classify, event, body) == outcome(full_parse, event, body)


def test_every_corpus_payload_decides_alike() -> None:
    for path in WEBHOOKS.glob("*/*.json"):
        body = path.read_bytes()
        assert outcome(classify, path.parent.name, body) == outcome(
            full_parse, path.parent.name, body
        ), path
