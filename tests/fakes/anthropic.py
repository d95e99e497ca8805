"""A fake Anthropic Messages API: a real HTTP server driven by a script of replies.

    with FakeAnthropic([tool_use("read_file", {"path": "x"}), text("done")]) as fake:
        client = anthropic.Anthropic(api_key="k", base_url=fake.base_url, max_retries=0)
        ...
        fake.requests[0].json["system"]

Every reply is built from a real response in ``tests/corpus/anthropic/`` (the SDK's models
parse them); errors carry their real bodies and headers. A reply may also be a function of
the request (``Callable[[Recorded], Reply]``); a reply with ``delay_s`` is sent that much
later without holding up the others (a slow model). Every request is recorded with its headers
and raw bytes. Usage is computed from the request like the real prompt cache would: bytes
up to the longest ``cache_control`` breakpoint seen before are a cache read, the rest up to
the last breakpoint a cache write (4 bytes per token).
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

CORPUS = Path(__file__).parent.parent / "corpus" / "anthropic"
_DROP_HEADERS = {"content-length", "transfer-encoding", "connection", "content-type"}


def corpus(name: str) -> dict[str, Any]:
    return json.loads((CORPUS / name).read_text())  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    usage: dict[str, int] | None = None  # fixed usage instead of the computed one
    delay_s: float = 0.0  # answer this much later, without holding up other requests


@dataclass(frozen=True)
class Recorded:
    headers: dict[str, str]
    raw: bytes

    @property
    def json(self) -> dict[str, Any]:
        return json.loads(self.raw)  # type: ignore[no-any-return]


Script = Reply | Callable[[Recorded], Reply]
_ids = itertools.count(1)


def _flat_headers(headers: dict[str, Any]) -> dict[str, str]:
    flat = {k: (v[0] if isinstance(v, list) else v) for k, v in headers.items()}
    return {k: str(v) for k, v in flat.items() if k.lower() not in _DROP_HEADERS}


def _message(content: list[dict[str, Any]], stop_reason: str) -> Reply:
    shape = corpus("messages.create.text_plus_tool_use.200.json")
    body = copy.deepcopy(shape["body"])
    body.update(id=f"msg_fake{next(_ids):06d}", content=content, stop_reason=stop_reason)
    return Reply(200, body)


def text(answer: str) -> Reply:
    """An ``end_turn`` answer with one text block."""
    return _message([{"type": "text", "text": answer}], "end_turn")


def tool_use(name: str, arguments: dict[str, Any], *, say: str | None = None) -> Reply:
    """A ``tool_use`` turn (optionally preceded by text), shaped like the recorded one."""
    shape = corpus("messages.create.tool_use.200.json")["body"]["content"][0]
    call = {**copy.deepcopy(shape), "id": f"toolu_fake{next(_ids):06d}", "name": name}
    call["input"] = arguments
    content = ([{"type": "text", "text": say}] if say else []) + [call]
    return _message(content, "tool_use")


def tool_uses(calls: Iterable[tuple[str, dict[str, Any]]]) -> Reply:
    blocks = [tool_use(name, args).body["content"][0] for name, args in calls]
    return _message(blocks, "tool_use")


def rate_limited(retry_after: str | None = "1") -> Reply:
    """The recorded 429 (``x-should-retry: true``) plus a ``retry-after`` when given."""
    shape = corpus("error.rate_limit_error.429.json")
    headers = _flat_headers(shape["headers"])
    if retry_after is not None:
        headers["retry-after"] = retry_after
    return Reply(429, shape["body"], headers)


def overloaded() -> Reply:
    """The 529 ``overloaded_error`` quoted verbatim from anthropic-sdk-typescript#616."""
    quoted = corpus("quoted_real_errors.json")["overloaded_error_529"][0]
    return Reply(529, json.loads(quoted["body_raw"]), _flat_headers(quoted["headers"]))


def bad_request() -> Reply:
    """The recorded 400 ``invalid_request_error`` (``x-should-retry: false``)."""
    shape = corpus("error.invalid_request_error.400.json")
    return Reply(400, shape["body"], _flat_headers(shape["headers"]))


def _canonical(item: Any) -> tuple[bytes, bool]:
    marked = isinstance(item, dict) and "cache_control" in item
    if isinstance(item, dict):
        item = {k: v for k, v in item.items() if k != "cache_control"}
    return json.dumps(item, sort_keys=True, ensure_ascii=False).encode(), marked


def prompt_segments(body: dict[str, Any]) -> list[tuple[bytes, bool]]:
    """The prompt in the cache's order (tools, system, messages) as (bytes, breakpoint)."""
    system = body.get("system", [])
    parts: list[tuple[bytes, bool]] = [_canonical(t) for t in body.get("tools", [])]
    parts += [_canonical(s) for s in (system if isinstance(system, list) else [system])]
    for message in body.get("messages", []):
        content = message["content"]
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        parts.append((f'{{"role":"{message["role"]}"}}'.encode(), False))
        parts += [_canonical(b) for b in blocks]
    return parts


def prompt_bytes(body: dict[str, Any]) -> bytes:
    return b"".join(segment for segment, _ in prompt_segments(body))


def shared_prefix(a: bytes, b: bytes) -> int:
    size = min(len(a), len(b))
    index = next((i for i in range(size) if a[i] != b[i]), size)
    return index


class FakeAnthropic:
    """The server; ``requests`` holds every request, ``script`` the replies still to give."""

    def __init__(self, script: Iterable[Script] = (), *, api_key: str = "test-key") -> None:
        self.script: deque[Script] = deque(script)
        self.requests: list[Recorded] = []
        self.usages: list[dict[str, int] | None] = []  # per request: the usage answered
        self.unexpected: list[str] = []
        self.api_key = api_key
        self._cached: set[bytes] = set()
        self._lock = threading.Lock()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""

    def push(self, *replies: Script) -> None:
        self.script.extend(replies)

    def _authorised(self, request: Request) -> bool:
        bearer = request.headers.get("authorization", "")
        given = request.headers.get("x-api-key") or bearer.removeprefix("Bearer ")
        return given == self.api_key

    async def _messages(self, request: Request) -> Response:
        raw = await request.body()
        recorded = Recorded(dict(request.headers), raw)
        with self._lock:
            self.requests.append(recorded)
            self.usages.append(None)
            position = len(self.requests) - 1
            if not self._authorised(request):
                return _error(401, "authentication_error", "invalid x-api-key")
            if not self.script:
                self.unexpected.append("request after the script ended")
                return _error(500, "api_error", "fake: no scripted reply left", retry=False)
            item = self.script.popleft()
            reply = item(recorded) if callable(item) else item
            body = copy.deepcopy(reply.body)
            if reply.status == 200:
                body["usage"] = {**body["usage"], **(reply.usage or self._usage(recorded))}
                self.usages[position] = body["usage"]
        headers = {"request-id": f"req_fake{next(_ids):06d}", **reply.headers}
        if reply.delay_s > 0:
            await asyncio.sleep(reply.delay_s)  # a slow model: other requests go on meanwhile
        return JSONResponse(body, status_code=reply.status, headers=headers)

    def _usage(self, recorded: Recorded) -> dict[str, int]:
        segments = prompt_segments(recorded.json)
        prefix, read, last_mark = b"", 0, 0
        for segment, marked in segments:
            prefix += segment
            if marked:
                last_mark = len(prefix)
                if prefix in self._cached:
                    read = len(prefix)
                self._cached.add(prefix)
        total = len(prefix)
        return {
            "input_tokens": (total - max(read, last_mark)) // 4,
            "cache_read_input_tokens": read // 4,
            "cache_creation_input_tokens": (max(read, last_mark) - read) // 4,
            "output_tokens": 50,
        }

    def start(self) -> FakeAnthropic:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        app = Starlette(routes=[Route("/v1/messages", self._messages, methods=["POST"])])
        config = uvicorn.Config(app, lifespan="off", log_level="warning", http="h11")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, args=([sock],), daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the fake Anthropic server did not start")
            time.sleep(0.01)
        self.base_url = f"http://127.0.0.1:{port}"
        return self

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _error(status: int, kind: str, message: str, *, retry: bool = True) -> JSONResponse:
    body = {"type": "error", "error": {"type": kind, "message": message}}
    headers = {"x-should-retry": "true" if retry else "false"}
    return JSONResponse(body, status_code=status, headers=headers)
