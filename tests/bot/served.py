"""An app served by uvicorn in a thread, the way `agentium web` serves it: the bot's own
HTTP protocol (`bot.hookserver`), uvloop, the lifespan run; on a port of its own."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import uvicorn
from starlette.types import ASGIApp

from bot.serve import BOT_PROTOCOL
from tests.fakes.threaded import ThreadedServer


@contextmanager
def served(app: ASGIApp, http: str = BOT_PROTOCOL) -> Iterator[httpx.Client]:
    """An HTTP client of the running server (base URL set), the server stopped after."""
    config = uvicorn.Config(
        app, http=http, loop="uvloop", lifespan="on", access_log=False, log_config=None
    )
    server = ThreadedServer(config, "the web app")
    url = server.start()
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            yield client
    finally:
        server.stop()


def raw_exchange(client: httpx.Client, request: bytes, answers: int) -> list[bytes]:
    """Send `request` bytes as they are on one new connection; the first `answers` answers
    (each its head and body, split on Content-Length), in the order they came."""
    url = httpx.URL(str(client.base_url))
    with socket.create_connection((url.host, url.port or 80), timeout=10) as conn:
        conn.sendall(request)
        got, buffer = [], b""
        while len(got) < answers:
            head, sep, rest = buffer.partition(b"\r\n\r\n")
            length = _length(head) if sep else None
            if length is not None and len(rest) >= length:
                got.append(head + sep + rest[:length])
                buffer = rest[length:]
                continue
            chunk = conn.recv(65536)
            if not chunk:
                break
            buffer += chunk
        return got


def _length(head: bytes) -> int | None:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value.strip())
    return None
