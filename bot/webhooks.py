"""POST /api/github/webhooks: verify, drop repeats, decide, store, answer in milliseconds."""

from __future__ import annotations

import logging
import re
import time
from dataclasses import replace
from typing import Protocol

from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from bot.events import Classified, Decision, MalformedPayload, classify
from bot.intake import Envelope, Intake
from bot.signature import signature_valid

log = logging.getLogger("agentium.webhooks")

MAX_BODY_BYTES = 25 * 1024 * 1024  # GitHub caps payloads at 25 MB
DELIVERY_ID = re.compile(r"^[A-Za-z0-9-]{1,64}$")
EVENT_NAME = re.compile(r"^[a-z_]{1,64}$")


class BodyTooLarge(Exception):
    pass


class DeliveryObserver(Protocol):
    """Counts deliveries in memory (``bot.metrics.ReceiverMetrics``); no I/O."""

    def observe(self, event: str, decision: str | None, status: int, seconds: float) -> None: ...


class WebhookReceiver:
    def __init__(
        self,
        secret: str,
        intake: Intake,
        max_body: int = MAX_BODY_BYTES,
        observer: DeliveryObserver | None = None,
    ) -> None:
        self._secret = secret
        self._intake = intake
        self._max_body = max_body
        self._observer = observer

    async def handle(self, request: Request) -> Response:
        started = time.perf_counter()
        response, classified = await self._answer(request)
        _log_delivery(request, response, classified, started)
        if self._observer is not None:
            decision = classified.decision.value if classified else None
            event = request.headers.get("x-github-event", "")
            elapsed = time.perf_counter() - started
            self._observer.observe(event, decision, response.status_code, elapsed)
        return response

    async def _answer(self, request: Request) -> tuple[Response, Classified | None]:
        try:
            body = await read_capped(request, self._max_body)
        except BodyTooLarge:
            return _error(413, "payload larger than 25 MB"), None
        except ValueError as exc:
            return _error(400, str(exc)), None
        headers = request.headers
        if not signature_valid(self._secret, body, headers.get("x-hub-signature-256")):
            return _error(401, "missing or invalid X-Hub-Signature-256"), None
        event, delivery = headers.get("x-github-event", ""), headers.get("x-github-delivery", "")
        if not EVENT_NAME.match(event) or not DELIVERY_ID.match(delivery):
            return _error(400, "missing or malformed X-GitHub-Event / X-GitHub-Delivery"), None
        if event == "ping":
            return _decided(200, Classified(Decision.PING)), Classified(Decision.PING)
        try:
            classified = classify(event, body)
        except MalformedPayload as exc:
            return _error(400, str(exc)), None
        if classified.decision is not Decision.ENQUEUED:
            return _decided(202, classified), classified
        envelope = Envelope(delivery, event, classified.action, time.time(), body)
        return await self._store(envelope, classified)

    async def _store(
        self, envelope: Envelope, classified: Classified
    ) -> tuple[Response, Classified | None]:
        try:
            new = await self._intake.submit(envelope)
        except (RedisError, OSError):
            log.exception("cannot store delivery", extra={"delivery": envelope.delivery})
            return _error(503, "queue unavailable, redeliver later"), classified
        if not new:
            classified = replace(classified, decision=Decision.DUPLICATE)
        return _decided(202, classified), classified


async def read_capped(request: Request, limit: int) -> bytes:
    """The whole body, refusing (BodyTooLarge) as soon as it passes `limit` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise ValueError("malformed Content-Length")
        if int(declared) > limit:
            raise BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _error(status: int, message: str) -> Response:
    return JSONResponse({"error": message}, status_code=status)


def _decided(status: int, classified: Classified) -> Response:
    return JSONResponse({"decision": classified.decision.value}, status_code=status)


def _log_delivery(
    request: Request, response: Response, classified: Classified | None, started: float
) -> None:
    log.info(
        "delivery",
        extra={
            "delivery": request.headers.get("x-github-delivery", "")[:64],
            "event": request.headers.get("x-github-event", "")[:64],
            "action": classified.action if classified else None,
            "repo": classified.repo if classified else None,
            "issue": classified.issue if classified else None,
            "decision": classified.decision.value if classified else "rejected",
            "status": response.status_code,
            "ms": round((time.perf_counter() - started) * 1000, 3),
        },
    )
