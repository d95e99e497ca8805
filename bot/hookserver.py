"""Deliveries answered by uvicorn's HTTP protocol itself, before any ASGI machinery.

uvicorn's httptools protocol parses a request, then runs the ASGI app in a task of its own
and passes it the body and takes its answer as message dicts through awaited callables.
For the request a GitHub App receives by the thousand, a POST to the webhook path, that
plumbing costs more than the receiver's own work. :class:`WebhookProtocol` is uvicorn's
protocol with one change: such a request is answered from the parser's callbacks. Its
body is collected as it arrives, ``WebhookReceiver.verdict`` decides, an accepted delivery
joins the intake's next Redis write, and the answer is written from that write's callback,
so it is still sent only once Redis has the delivery.

Only the usual shape is taken this way: a declared length within the limit, no ``Expect:
100-continue``, no upgrade, nothing else in flight on the connection. Anything else,
and every other request, goes the usual way, to the same receiver through ASGI. While a
delivery is answered here it stands where uvicorn keeps its request cycle, so uvicorn's
own handling of a request pipelined behind it, of a graceful shutdown and of a client
that disconnects applies unchanged.

The receiver is found in the lifespan's state under ``RECEIVER_STATE``, the ASGI way for
an app to hand something to its server; without it (the first-run setup app, a lifespan
not yet run) every request goes through ASGI.
"""

from __future__ import annotations

import asyncio
import logging
import time
from functools import partial

from redis.exceptions import RedisError
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from bot.webhooks import (
    RECEIVER_STATE,
    WEBHOOK_PATH,
    Answer,
    Headers,
    ToStore,
    WebhookReceiver,
    error_answer,
)

log = logging.getLogger("agentium.webhooks")

_PATH = WEBHOOK_PATH.encode()
_JSON = b"content-type: application/json\r\ncontent-length: %d\r\n"
_CLOSE = b"connection: close\r\n"


class _Hook:
    """A delivery answered by the protocol. It has the attributes uvicorn's protocol reads
    of its request cycle (``message_event`` is the hook itself, so ``set`` is a no-op)."""

    __slots__ = (
        "chunks",
        "disconnected",
        "headers",
        "keep_alive",
        "limit",
        "receiver",
        "response_complete",
        "size",
        "started",
    )

    def __init__(
        self, receiver: WebhookReceiver, headers: Headers, limit: int, keep_alive: bool
    ) -> None:
        self.receiver = receiver
        self.headers = headers
        self.chunks: list[bytes] = []
        self.size = 0
        self.limit = limit  # the declared length, within the receiver's maximum
        self.keep_alive = keep_alive
        self.response_complete = False
        self.disconnected = False
        self.started = time.perf_counter()

    @property
    def message_event(self) -> _Hook:
        return self

    def set(self) -> None:
        """uvicorn wakes its cycle this way on a disconnect; nothing waits on a hook."""

    def body(self) -> bytes:
        return self.chunks[0] if len(self.chunks) == 1 else b"".join(self.chunks)


class WebhookProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, answering deliveries itself (see the module's text)."""

    def on_headers_complete(self) -> None:
        hook = self._hook_for_request()
        if hook is None:
            super().on_headers_complete()
        else:
            self.cycle = hook  # type: ignore[assignment]  # read as a cycle by uvicorn

    def _hook_for_request(self) -> _Hook | None:
        busy = self.cycle is not None and not self.cycle.response_complete
        if busy or self.expect_100_continue or self.parser.should_upgrade():
            return None
        if self.parser.get_method() != b"POST" or self.url.partition(b"?")[0] != _PATH:
            return None
        receiver = self.app_state.get(RECEIVER_STATE)
        if not isinstance(receiver, WebhookReceiver):
            return None
        headers = Headers.of_list(self.headers)
        length = headers.length
        if length is None or not length.isdigit() or (limit := int(length)) > receiver.max_body:
            return None  # the ASGI path answers these (400, 413) or reads a chunked body
        keep_alive = self.parser.get_http_version() != "1.0" and self.parser.should_keep_alive()
        return _Hook(receiver, headers, limit, keep_alive)

    def on_body(self, body: bytes) -> None:
        hook: object = self.cycle
        if isinstance(hook, _Hook):
            hook.size += len(body)  # the parser stops at the declared length; in case not:
            if hook.size <= hook.limit:
                hook.chunks.append(body)
        else:
            super().on_body(body)

    def on_message_complete(self) -> None:
        hook: object = self.cycle
        if not isinstance(hook, _Hook):
            super().on_message_complete()
            return
        if hook.size > hook.limit:
            self._answer(hook, error_answer(413, "body longer than its Content-Length"))
            return
        try:
            verdict = hook.receiver.verdict(hook.headers, hook.body())
            if isinstance(verdict, ToStore):
                stored = hook.receiver.intake.enqueue(verdict.envelope)
                stored.add_done_callback(partial(self._stored, hook, verdict))
                return
        except Exception:  # a bug, not the client's doing: answered, logged, served on
            log.exception("answering a delivery failed")
            verdict = error_answer(500, "internal error")
        self._answer(hook, verdict)

    def _stored(self, hook: _Hook, verdict: ToStore, stored: asyncio.Future[bool]) -> None:
        outcome: bool | BaseException
        if stored.cancelled():
            outcome = RedisError("the write was cancelled (the server is stopping)")
        else:
            outcome = stored.exception() or stored.result()
        self._answer(hook, hook.receiver.settle(verdict, outcome))

    def _answer(self, hook: _Hook, answer: Answer) -> None:
        status, body, classified = answer
        hook.response_complete = True
        if not self.transport.is_closing():
            head = [STATUS_LINE[status]]
            for name, value in self.server_state.default_headers:
                head += (name, b": ", value, b"\r\n")
            head.append(_JSON % len(body))
            if not hook.keep_alive:
                head.append(_CLOSE)
            head += (b"\r\n", body)
            self.transport.write(b"".join(head))
            if not hook.keep_alive:
                self.transport.close()
            self.on_response_complete()  # a pipelined request, or the keep-alive timer
        hook.receiver.record(hook.headers, status, classified, hook.started)
