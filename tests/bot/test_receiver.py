"""The receiver against the real Redis: statuses, decisions and what lands in the intake."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import redis
from httpx import Client
from starlette.testclient import TestClient

from bot.app import WEBHOOK_PATH, create_app
from config import keys
from config.settings import load_settings
from tests.bot.served import served
from tests.support import SECRET, delivery_headers, encode, payload
from workers.intake.payloads import Event

# Every payload in the corpus: (event, file name) -> (status, decision).
CORPUS_EXPECTATIONS = {
    ("installation", "created"): (202, "enqueued"),
    ("issue_comment", "created.1"): (202, "enqueued"),  # maybe an answer to a question
    ("issues", "assigned"): (202, "enqueued"),
    ("issues", "labeled"): (202, "enqueued"),
    ("issues", "opened"): (202, "ignored:action"),
    ("issues", "reopened"): (202, "enqueued"),
    ("issues", "unlabeled"): (202, "enqueued"),
    ("ping", ""): (200, "ping"),
    ("pull_request", "closed"): (202, "enqueued"),
    ("pull_request", "opened"): (202, "ignored:action"),
    ("pull_request_review", "submitted"): (202, "enqueued"),
    ("pull_request_review_comment", "created"): (202, "enqueued"),
}


@pytest.fixture(params=["asgi", "uvicorn"])
def client(
    request: pytest.FixtureRequest, redis_url: str, redis_client: redis.Redis
) -> Iterator[Client]:
    """Every test twice: through ASGI (as a delivery in an unusual shape goes) and served
    by uvicorn with the bot's protocol, which answers deliveries itself."""
    settings = load_settings({"WEBHOOK_SECRET": SECRET, "REDIS_URL": redis_url})
    app = create_app(settings, dispatch=False)
    if request.param == "asgi":
        with TestClient(app) as test_client:
            yield test_client
    else:
        with served(app) as http_client:
            yield http_client


def post(client: Client, event: str, body: bytes, **kwargs: str) -> tuple[int, dict]:
    response = client.post(
        WEBHOOK_PATH, content=body, headers=delivery_headers(event, body, **kwargs)
    )
    return response.status_code, response.json()


def intake(redis_client: redis.Redis) -> list[bytes]:
    return list(redis_client.lrange(keys.INTAKE, 0, -1))


def test_corpus_covers_every_payload() -> None:
    from tests.support import WEBHOOKS

    files = {
        (
            p.parent.name,
            p.name.removesuffix(".payload.json").removesuffix("payload.json").rstrip("."),
        )
        for p in WEBHOOKS.glob("*/*.json")
    }
    assert files == set(CORPUS_EXPECTATIONS)


@pytest.mark.parametrize(("event", "name"), sorted(CORPUS_EXPECTATIONS))
def test_corpus_payload(client: Client, redis_client: redis.Redis, event: str, name: str) -> None:
    status, decision = CORPUS_EXPECTATIONS[(event, name)]
    body = encode(payload(event, name))
    delivery = f"corpus-{event}-{name or 'x'}".replace(".", "-").replace("_", "-")
    got_status, answer = post(client, event, body, delivery=delivery)
    assert (got_status, answer["decision"]) == (status, decision)
    stored = intake(redis_client)
    assert len(stored) == (1 if decision == "enqueued" else 0)
    if stored:
        meta = json.loads(stored[0])
        assert (meta["delivery"], meta["event"]) == (delivery, event)
        kept = redis_client.get(keys.delivery_body(delivery))
        assert kept is not None and len(kept) < len(body) / 4  # only what the bot reads
        assert Event.model_validate_json(kept) == Event.model_validate_json(body)


def test_a_payload_of_an_unusual_shape_is_stored_whole(
    client: Client, redis_client: redis.Redis
) -> None:
    body = b'{"action":"labeled","sender":"octocat","issue":{"number":1}}'
    assert post(client, "issues", body, delivery="odd-1") == (202, {"decision": "enqueued"})
    assert redis_client.get(keys.delivery_body("odd-1")) == body


def test_duplicate_delivery_is_enqueued_once(client: Client, redis_client: redis.Redis) -> None:
    body = encode(payload("issues", "labeled"))
    assert post(client, "issues", body, delivery="dup-1") == (202, {"decision": "enqueued"})
    assert post(client, "issues", body, delivery="dup-1") == (202, {"decision": "duplicate"})
    assert len(intake(redis_client)) == 1
    ttl = redis_client.ttl(keys.delivery_seen("dup-1"))
    assert ttl >= 7 * 24 * 3600


def test_bad_signature(client: Client, redis_client: redis.Redis) -> None:
    body = encode(payload("issues", "labeled"))
    headers = delivery_headers("issues", body)
    headers["X-Hub-Signature-256"] = "sha256=" + "0" * 64
    assert client.post(WEBHOOK_PATH, content=body, headers=headers).status_code == 401
    assert intake(redis_client) == []


def test_no_signature(client: Client, redis_client: redis.Redis) -> None:
    body = encode(payload("issues", "labeled"))
    headers = delivery_headers("issues", body)
    del headers["X-Hub-Signature-256"]
    assert client.post(WEBHOOK_PATH, content=body, headers=headers).status_code == 401
    assert intake(redis_client) == []


def test_wrong_secret(client: Client, redis_client: redis.Redis) -> None:
    body = encode(payload("issues", "labeled"))
    assert post(client, "issues", body, secret="not-the-secret")[0] == 401
    assert intake(redis_client) == []


def test_truncated_body(client: Client, redis_client: redis.Redis) -> None:
    body = encode(payload("issues", "labeled"))
    headers = delivery_headers("issues", body)
    assert client.post(WEBHOOK_PATH, content=body[:-10], headers=headers).status_code == 401
    assert intake(redis_client) == []


def test_body_over_25_mb(client: Client, redis_client: redis.Redis) -> None:
    body = b'{"action": "labeled", "pad": "' + b"x" * (26 * 1024 * 1024) + b'"}'
    status, answer = post(client, "issues", body)
    assert status == 413
    assert "25 MB" in answer["error"]
    assert intake(redis_client) == []


def test_body_streamed_without_length_over_25_mb(client: Client) -> None:
    chunk = b"x" * (1024 * 1024)
    headers = delivery_headers("issues", b"")

    def chunks() -> Iterator[bytes]:
        for _ in range(26):
            yield chunk

    response = client.post(WEBHOOK_PATH, content=chunks(), headers=headers)
    assert response.status_code == 413


def test_unknown_event_is_ignored(client: Client, redis_client: redis.Redis) -> None:
    body = encode({"action": "created", "sender": {"login": "x", "type": "User"}})
    assert post(client, "star", body) == (202, {"decision": "ignored:event"})
    assert intake(redis_client) == []


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b'{"no_action": 1}', b"\xff\xfe"])
def test_malformed_payload(client: Client, redis_client: redis.Redis, body: bytes) -> None:
    status, answer = post(client, "issues", body)
    assert status == 400
    assert answer["error"]
    assert intake(redis_client) == []


@pytest.mark.parametrize("missing", ["X-GitHub-Event", "X-GitHub-Delivery"])
def test_missing_headers(client: Client, redis_client: redis.Redis, missing: str) -> None:
    body = encode(payload("issues", "labeled"))
    headers = delivery_headers("issues", body)
    del headers[missing]
    assert client.post(WEBHOOK_PATH, content=body, headers=headers).status_code == 400
    assert intake(redis_client) == []


def test_malformed_delivery_id(client: Client, redis_client: redis.Redis) -> None:
    body = encode(payload("issues", "labeled"))
    assert post(client, "issues", body, delivery="../../etc")[0] == 400
    assert intake(redis_client) == []


def test_events_from_bots_are_ignored(client: Client, redis_client: redis.Redis) -> None:
    data = payload("issues", "labeled")
    data["sender"] = {**data["sender"], "login": "agentium[bot]", "type": "Bot"}
    assert post(client, "issues", encode(data)) == (202, {"decision": "ignored:bot_sender"})
    assert intake(redis_client) == []


def test_command_comment_is_enqueued(client: Client, redis_client: redis.Redis) -> None:
    data = payload("issue_comment", "created.1")
    data["comment"]["body"] = "Thanks!\n/agentium status"
    assert post(client, "issue_comment", encode(data)) == (202, {"decision": "enqueued"})
    assert len(intake(redis_client)) == 1


def test_a_plain_comment_is_enqueued_on_an_issue_not_on_a_pr(
    client: Client, redis_client: redis.Redis
) -> None:
    data = payload("issue_comment", "created.1")
    data["comment"]["body"] = "Use a semicolon."  # maybe the answer to the bot's question
    assert post(client, "issue_comment", encode(data)) == (202, {"decision": "enqueued"})
    data["issue"]["pull_request"] = {"url": "https://api.github.com/repos/o/r/pulls/1"}
    assert post(client, "issue_comment", encode(data)) == (
        202,
        {"decision": "ignored:no_command"},
    )
    assert len(intake(redis_client)) == 1


def test_get_is_not_allowed(client: Client) -> None:
    assert client.get(WEBHOOK_PATH).status_code == 405


def test_healthz_with_redis_up(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["redis"] == "up"


def test_the_webhook_path_answers_only_post(client: Client) -> None:
    assert client.get(WEBHOOK_PATH).status_code == 405


def test_answers_are_compact_json(client: Client) -> None:
    body = encode(payload("issues", "opened"))
    response = client.post(WEBHOOK_PATH, content=body, headers=delivery_headers("issues", body))
    assert response.content == b'{"decision":"ignored:action"}'
    assert response.headers["content-type"] == "application/json"
