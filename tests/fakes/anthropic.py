"""A fake Anthropic Messages API: a real HTTP server driven by a script of replies.

    with FakeAnthropic([tool_use("read_file", {"path": "x"}), text("done")]) as fake:
        client = anthropic.Anthropic(api_key="k", base_url=fake.base_url, max_retries=0)
        ...
        fake.requests[0].json["system"]

Every reply is built from a real response in ``tests/corpus/anthropic/`` (the SDK's models
parse them); errors carry their real bodies and headers. A reply may also be a function of
the request (``Callable[[Recorded], Reply]``). Every request is recorded with its headers
and raw bytes, and ``usages`` holds the usage answered to each. Usage is computed from the
request like the real prompt cache would: bytes up to the longest ``cache_control``
breakpoint seen before are a cache read, the rest up to the last breakpoint a cache write
(4 bytes per token), split into 1-hour and 5-minute writes by the breakpoints' ``ttl``.
(Expiry and the minimum cacheable length are modelled by ``bench/cachemodel.py``.)

Like the real API, the fake answers many requests at once: each is awaited on its own, a
reply function runs in a thread, and ``latency`` (seconds per request, a function of it)
is slept asynchronously before the reply is computed, a reply's own ``delay_s`` after it,
so a slow answer never holds up another. ``task_of`` names the task a request belongs to;
``calls`` records every request's start and end per task and ``peak`` the most requests of
one task in flight at any moment. A request whose client went away (a killed worker) ends
when the fake notices, and (during ``latency``) its reply is never computed, so a script is
not advanced by an answer nobody reads.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import itertools
import json
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

from tests.fakes.anthropic_cache import prompt_blocks
from tests.fakes.anthropic_cache import prompt_bytes as prompt_bytes  # re-exported
from tests.fakes.anthropic_cache import prompt_segments as prompt_segments  # re-exported
from tests.fakes.anthropic_cache import shared_prefix as shared_prefix  # re-exported
from tests.fakes.threaded import ThreadedServer

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
POLL_S = 0.25  # how often a waiting request looks for its client's disconnection


@dataclass
class Call:
    """One request as the server saw it: its task, when it came, when it ended."""

    task: object
    started: float
    ended: float | None = None
    abandoned: bool = False  # the client went away before the answer


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


def cut_off(reply: Reply) -> Reply:
    """``reply`` as an answer stopped by ``max_tokens`` (a text or a tool call cut short)."""
    return Reply(reply.status, {**reply.body, "stop_reason": "max_tokens"}, reply.headers)


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


class FakeAnthropic:
    """The server; ``requests`` holds every request, ``script`` the replies still to give."""

    def __init__(self, script: Iterable[Script] = (), *, api_key: str = "test-key") -> None:
        self.script: deque[Script] = deque(script)
        self.requests: list[Recorded] = []
        self.usages: list[dict[str, int] | None] = []  # per request: the usage answered
        self.unexpected: list[str] = []
        self.api_key = api_key
        self.latency: Callable[[Recorded], float] | None = None
        self.task_of: Callable[[Recorded], object] | None = None
        self.calls: list[Call] = []
        self.peak: dict[object, int] = {}
        self._in_flight: dict[object, int] = {}
        self._cached: set[bytes] = set()  # digests of the prefixes written
        self._lock = threading.Lock()
        self._server: ThreadedServer | None = None
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
        call = self._begin(recorded)
        try:
            delay = self.latency(recorded) if self.latency is not None else 0.0
            if not await _wait_unless_gone(request, delay):
                call.abandoned = True
                return Response(status_code=499)
            return await self._answer(request, recorded, position)
        finally:
            self._end(call)

    def _begin(self, recorded: Recorded) -> Call:
        with self._lock:
            task = self.task_of(recorded) if self.task_of is not None else None
            call = Call(task, time.time())
            self.calls.append(call)
            self._in_flight[task] = self._in_flight.get(task, 0) + 1
            self.peak[task] = max(self.peak.get(task, 0), self._in_flight[task])
            return call

    def _end(self, call: Call) -> None:
        with self._lock:
            call.ended = time.time()
            self._in_flight[call.task] -= 1

    async def _answer(self, request: Request, recorded: Recorded, position: int) -> Response:
        with self._lock:
            if not self.script:
                self.unexpected.append("request after the script ended")
                return _error(500, "api_error", "fake: no scripted reply left", retry=False)
            item = self.script.popleft()
        reply = await asyncio.to_thread(item, recorded) if callable(item) else item
        body = copy.deepcopy(reply.body)
        if reply.status == 200:
            with self._lock:
                body["usage"] = {**body["usage"], **(reply.usage or self._usage(recorded))}
                self.usages[position] = body["usage"]
        headers = {"request-id": f"req_fake{next(_ids):06d}", **reply.headers}
        if not await _wait_unless_gone(request, reply.delay_s):  # this answer is slow
            return Response(status_code=499)
        return JSONResponse(body, status_code=reply.status, headers=headers)

    def in_flight(self) -> dict[object, int]:
        """Requests being answered now, per task."""
        with self._lock:
            return {task: count for task, count in self._in_flight.items() if count}

    def _usage(self, recorded: Recorded) -> dict[str, Any]:
        digest, size, read, last_mark, long_mark = hashlib.sha256(), 0, 0, 0, 0
        for segment in prompt_blocks(recorded.json):
            digest.update(segment.data)
            size += len(segment.data)
            if segment.ttl is not None:
                last_mark = size
                long_mark = size if segment.ttl == "1h" else long_mark
                key = digest.copy().digest()
                if key in self._cached:
                    read = size
                self._cached.add(key)
        written = max(read, last_mark) - read
        long_written = max(0, long_mark - read)
        return {
            "input_tokens": (size - max(read, last_mark)) // 4,
            "cache_read_input_tokens": read // 4,
            "cache_creation_input_tokens": written // 4,
            "cache_creation": {
                "ephemeral_1h_input_tokens": long_written // 4,
                "ephemeral_5m_input_tokens": written // 4 - long_written // 4,
            },
            "output_tokens": 50,
        }

    def start(self) -> FakeAnthropic:
        app = Starlette(routes=[Route("/v1/messages", self._messages, methods=["POST"])])
        config = uvicorn.Config(app, lifespan="off", log_level="warning", http="h11")
        self._server = ThreadedServer(config, "the fake Anthropic server")
        self.base_url = self._server.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


async def _wait_unless_gone(request: Request, seconds: float) -> bool:
    """Sleep `seconds` without blocking other requests; False if the client went away."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        await asyncio.sleep(min(POLL_S, left))
        if await request.is_disconnected():
            return False
    return True


def _error(status: int, kind: str, message: str, *, retry: bool = True) -> JSONResponse:
    body = {"type": "error", "error": {"type": kind, "message": message}}
    headers = {"x-should-retry": "true" if retry else "false"}
    return JSONResponse(body, status_code=status, headers=headers)
