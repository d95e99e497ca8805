"""Deliveries answered by the bot's HTTP protocol, served by uvicorn against the real Redis.

The receiver's answers themselves are tested on both paths in test_receiver.py; these are
about the protocol: which requests it takes, and HTTP on the connection around them.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import httpx
import pytest
import redis
from starlette.types import ASGIApp, Receive, Scope, Send

from bot.app import create_app
from bot.webhooks import WEBHOOK_PATH
from config import keys
from config.settings import load_settings
from tests.bot.served import raw_exchange, served
from tests.support import SECRET, delivery_headers, encode, payload
from workers.processes.embedded_redis import free_port


class CountingApp:
    """The app, counting the HTTP requests that reach it through ASGI."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.requests: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self.requests.append(f"{scope['method']} {scope['path']}")
        await self.app(scope, receive, send)


@pytest.fixture
def app(redis_url: str, redis_client: redis.Redis) -> CountingApp:
    settings = load_settings({"WEBHOOK_SECRET": SECRET, "REDIS_URL": redis_url})
    return CountingApp(create_app(settings, dispatch=False))


@pytest.fixture
def client(app: CountingApp) -> Iterator[httpx.Client]:
    with served(app) as http_client:
        yield http_client


def labeled(delivery: str) -> tuple[bytes, dict[str, str]]:
    body = encode(payload("issues", "labeled"))
    return body, delivery_headers("issues", body, delivery=delivery)


def raw_post(body: bytes, headers: dict[str, str], version: str = "1.1") -> bytes:
    lines = [f"POST {WEBHOOK_PATH} HTTP/{version}", "Host: bot"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def stored(redis_client: redis.Redis) -> int:
    return int(redis_client.llen(keys.INTAKE))


def test_a_delivery_is_answered_without_asgi_and_anything_else_through_it(
    client: httpx.Client, app: CountingApp, redis_client: redis.Redis
) -> None:
    body, headers = labeled("hook-1")
    response = client.post(WEBHOOK_PATH, content=body, headers=headers)
    assert (response.status_code, response.json()) == (202, {"decision": "enqueued"})
    assert response.headers["content-type"] == "application/json"
    assert {"date", "server"} <= set(response.headers)  # as uvicorn answers
    assert app.requests == [] and stored(redis_client) == 1
    assert client.get("/healthz").status_code == 200
    assert client.get(WEBHOOK_PATH).status_code == 405
    assert app.requests == ["GET /healthz", f"GET {WEBHOOK_PATH}"]


def test_a_chunked_or_expecting_delivery_goes_through_asgi(
    client: httpx.Client, app: CountingApp, redis_client: redis.Redis
) -> None:
    body, headers = labeled("hook-chunked")
    response = client.post(WEBHOOK_PATH, content=iter([body[:100], body[100:]]), headers=headers)
    assert response.json() == {"decision": "enqueued"}
    body, headers = labeled("hook-expect")
    response = client.post(
        WEBHOOK_PATH, content=body, headers={**headers, "Expect": "100-continue"}
    )
    assert response.json() == {"decision": "enqueued"}
    assert app.requests == [f"POST {WEBHOOK_PATH}"] * 2 and stored(redis_client) == 2


def test_pipelined_requests_are_answered_in_order(
    client: httpx.Client, app: CountingApp, redis_client: redis.Redis
) -> None:
    first, second = labeled("pipe-1"), labeled("pipe-2")
    health = b"GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n"
    request = raw_post(*first) + raw_post(*first) + health + raw_post(*second)
    answers = raw_exchange(client, request, 4)
    assert [a.split(b"\r\n", 1)[0] for a in answers] == [b"HTTP/1.1 202 Accepted"] * 2 + [
        b"HTTP/1.1 200 OK",
        b"HTTP/1.1 202 Accepted",
    ]
    assert answers[0].endswith(b'{"decision":"enqueued"}')
    assert answers[1].endswith(b'{"decision":"duplicate"}')
    assert b'"redis":"up"' in answers[2]
    assert answers[3].endswith(b'{"decision":"enqueued"}')
    assert stored(redis_client) == 2


def test_http_1_0_gets_its_answer_then_the_connection_closes(client: httpx.Client) -> None:
    request = raw_post(*labeled("old-http"), version="1.0")
    url = httpx.URL(str(client.base_url))
    with socket.create_connection((url.host, url.port or 80), timeout=10) as conn:
        conn.sendall(request)
        received = b""
        while chunk := conn.recv(65536):  # ends only when the server closes
            received += chunk
    assert received.startswith(b"HTTP/1.1 202 Accepted\r\n")
    assert b"connection: close\r\n" in received
    assert received.endswith(b'{"decision":"enqueued"}')


def test_a_client_gone_mid_body_stores_nothing_and_the_server_serves_on(
    client: httpx.Client, redis_client: redis.Redis
) -> None:
    request = raw_post(*labeled("cut-short"))
    url = httpx.URL(str(client.base_url))
    with socket.create_connection((url.host, url.port or 80), timeout=10) as conn:
        conn.sendall(request[: len(request) // 2])
    time.sleep(0.2)
    assert stored(redis_client) == 0 and redis_client.get(keys.delivery_seen("cut-short")) is None
    body, headers = labeled("cut-short")  # GitHub's redelivery
    assert client.post(WEBHOOK_PATH, content=body, headers=headers).status_code == 202
    assert stored(redis_client) == 1


def test_a_bad_signature_is_refused_without_asgi(
    client: httpx.Client, app: CountingApp, redis_client: redis.Redis
) -> None:
    body, headers = labeled("forged")
    headers["X-Hub-Signature-256"] = "sha256=" + "0" * 64
    response = client.post(WEBHOOK_PATH, content=body, headers=headers)
    assert response.status_code == 401 and app.requests == [] and stored(redis_client) == 0


def test_without_redis_a_delivery_is_answered_503_by_the_protocol() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    settings = load_settings({"WEBHOOK_SECRET": SECRET, "REDIS_URL": url})
    app = CountingApp(create_app(settings, dispatch=False))
    body, headers = labeled("no-redis")
    with served(app) as client:
        response = client.post(WEBHOOK_PATH, content=body, headers=headers)
        assert response.status_code == 503
        assert response.json() == {"error": "queue unavailable, redeliver later"}
        again = client.post(WEBHOOK_PATH, content=body, headers=headers)  # same connection
        assert again.status_code == 503
    assert app.requests == []


def test_a_length_and_a_chunked_encoding_together_are_refused(
    client: httpx.Client, redis_client: redis.Redis
) -> None:
    """Two framings of one body (a request-smuggling attempt): refused, nothing stored."""
    body, headers = labeled("smuggled")
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    request = raw_post(body, {**headers, "Transfer-Encoding": "chunked"})
    request = request.split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n" + chunked
    answers = raw_exchange(client, request, 1)
    assert answers and answers[0].startswith(b"HTTP/1.1 400 ")
    assert stored(redis_client) == 0
