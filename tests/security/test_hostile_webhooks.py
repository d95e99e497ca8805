"""Hostile deliveries against the real receiver and Redis: only 2xx/4xx, nothing stored unsigned.

Random headers, bodies and signatures (hypothesis); JSON nested 100,000 deep; bodies past
25 MB, with and without a Content-Length. Starlette's TestClient re-raises any exception
of the app, so "no exception" is checked by every request. A deep body that the receiver
accepts is also handed to the worker's decision, which must ignore it, not raise.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from bot.app import WEBHOOK_PATH, create_app
from bot.intake import decode_entry
from bot.webhooks import MAX_BODY_BYTES
from config import keys
from config.settings import load_settings
from tests.support import SECRET, encode, payload, sign
from workers.intake.deliveries import process_stored
from workers.intake.intents import Rules

EVENTS = ["issues", "issue_comment", "pull_request_review", "ping", "push", "", "ISSUES", "a b"]
STARTED = ("task_started", "installation_recorded")
SIGNATURES = ["valid", "wrong_secret", "random", "missing", "no_prefix", "uppercase"]


@pytest.fixture
def client(redis_url: str, redis_client: redis.Redis) -> Iterator[TestClient]:
    config = load_settings({"WEBHOOK_SECRET": SECRET, "REDIS_URL": redis_url})
    with TestClient(create_app(config, dispatch=False)) as test_client:
        yield test_client


def stored(redis_client: redis.Redis) -> list[bytes]:
    """Everything the receiver may have written: intake entries and delivery keys."""
    found = list(redis_client.lrange(keys.INTAKE, 0, -1))
    return found + list(redis_client.scan_iter(f"{keys.PREFIX}:delivery:*"))


def signature(kind: str, body: bytes, noise: str) -> str | None:
    good = sign(body)
    return {
        "valid": good,
        "wrong_secret": sign(body, SECRET + "x"),
        "random": noise,
        "missing": None,
        "no_prefix": good.removeprefix("sha256="),
        "uppercase": "sha256=" + good[7:].upper(),
    }[kind]


def labeled() -> bytes:
    data = payload("issues", "labeled")
    data["label"]["name"] = "agentium"
    return encode(data)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)
bodies = st.one_of(
    st.binary(max_size=512),
    json_values.map(lambda value: json.dumps(value).encode()),
    st.dictionaries(st.sampled_from(["action", "sender", "issue", "repository"]), json_values).map(
        lambda value: json.dumps(value).encode()
    ),
    st.just(labeled()),
)
header_text = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=80)
extra_headers = st.dictionaries(
    st.from_regex(r"X-[A-Za-z][A-Za-z0-9-]{0,15}", fullmatch=True), header_text, max_size=4
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=bodies,
    kind=st.sampled_from(SIGNATURES),
    noise=header_text,
    event=st.sampled_from(EVENTS) | header_text,
    delivery=st.uuids().map(str) | header_text,
    extra=extra_headers,
)
def test_random_deliveries_get_2xx_or_4xx_and_nothing_unsigned_is_stored(
    client: TestClient,
    redis_client: redis.Redis,
    body: bytes,
    kind: str,
    noise: str,
    event: str,
    delivery: str,
    extra: dict[str, str],
) -> None:
    redis_client.flushdb()
    headers = {**extra, "X-GitHub-Event": event, "X-GitHub-Delivery": delivery}
    value = signature(kind, body, noise)
    if value is not None:
        headers["X-Hub-Signature-256"] = value
    status = client.post(WEBHOOK_PATH, content=body, headers=headers).status_code
    assert 200 <= status < 500
    if kind != "valid":
        assert status == 401
        assert stored(redis_client) == []


def nested(depth: int, opener: bytes = b"[", closer: bytes = b"]") -> bytes:
    return opener * depth + closer * depth


def deep_object(depth: int) -> bytes:
    """A labeled issue with a deep array inside: valid JSON up to the parser's limits."""
    head, _, tail = labeled().rpartition(b"}")
    return head + b', "deep": ' + nested(depth) + tail + b"}"


def post_signed(client: TestClient, event: str, body: bytes) -> int:
    headers = {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": "deep-1",
        "X-Hub-Signature-256": sign(body),
    }
    return client.post(WEBHOOK_PATH, content=body, headers=headers).status_code


@pytest.mark.parametrize("depth", [100, 900, 1_000, 5_000, 100_000])
@pytest.mark.parametrize("event", ["issues", "installation"])
def test_deeply_nested_json_is_400_or_202_and_never_breaks_the_worker(
    client: TestClient, redis_client: redis.Redis, depth: int, event: str
) -> None:
    for body in (nested(depth), nested(depth, b'{"a":', b"}"), deep_object(depth)):
        redis_client.flushdb()
        status = post_signed(client, event, body)
        assert status in (400, 202)
        entries = redis_client.lrange(keys.INTAKE, 0, -1)
        if entries:
            meta = decode_entry(entries[0])
            rules = Rules("agentium", "agentium[bot]", frozenset({"stop", "retry", "status"}))
            decision = process_stored(redis_client, rules, meta, lambda record, cause: True)
            assert decision.startswith("ignored") or decision in STARTED, decision


def chunks(size: int, piece: int = 1 << 20) -> Iterator[bytes]:
    while size > 0:
        yield b" " * min(piece, size)
        size -= piece


def test_a_body_over_25_mb_is_413_with_or_without_a_length(
    client: TestClient, redis_client: redis.Redis
) -> None:
    big = b" " * (MAX_BODY_BYTES + 1)
    assert post_signed(client, "issues", big) == 413
    headers = {"X-GitHub-Event": "issues", "X-GitHub-Delivery": "big-2"}
    streamed = client.post(WEBHOOK_PATH, content=chunks(MAX_BODY_BYTES + 1), headers=headers)
    assert streamed.status_code == 413  # refused while reading, before the signature
    assert stored(redis_client) == []


def test_a_signed_body_just_under_25_mb_is_accepted(
    client: TestClient, redis_client: redis.Redis
) -> None:
    body = labeled()
    padded = body[:-1] + b', "pad": "' + b"x" * (MAX_BODY_BYTES - len(body) - 20) + b'"}'
    assert len(padded) <= MAX_BODY_BYTES
    assert post_signed(client, "issues", padded) == 202
    assert len(redis_client.lrange(keys.INTAKE, 0, -1)) == 1
