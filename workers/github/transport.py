"""The HTTP transport under githubkit: spaces writes and logs every request and its outcome.

Logged fields: method, path (no query string, no headers, so no token), status, ms.
"""

from __future__ import annotations

import logging
import time

import httpx

from workers.github.spacing import WriteSpacer, is_content_write

log = logging.getLogger("agentium.github.http")


class ObservedTransport(httpx.BaseTransport):
    def __init__(
        self,
        inner: httpx.BaseTransport,
        *,
        installation_id: int | None = None,
        spacer: WriteSpacer | None = None,
    ) -> None:
        self._inner = inner
        self._installation_id = installation_id
        self._spacer = spacer

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        method, path = request.method, request.url.path
        waited = 0.0
        if (
            self._spacer is not None
            and self._installation_id is not None
            and is_content_write(method, path, _graphql_body(request))
        ):
            waited = self._spacer.wait(self._installation_id)
        started = time.perf_counter()
        fields: dict[str, object] = {
            "method": method,
            "path": path,
            "installation_id": self._installation_id,
        }
        if waited:
            fields["spaced_ms"] = round(waited * 1000, 1)
        try:
            response = self._inner.handle_request(request)
        except httpx.TransportError as exc:
            fields |= {"error": type(exc).__name__, "ms": _ms(started)}
            log.warning("github request failed", extra=fields)
            raise
        fields |= {"status": response.status_code, "ms": _ms(started)}
        log.info("github request", extra=fields)
        return response

    def close(self) -> None:
        self._inner.close()


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


def _graphql_body(request: httpx.Request) -> bytes:
    """The body of a GraphQL request (whether it only reads decides its spacing)."""
    if not request.url.path.endswith("/graphql"):
        return b""
    try:
        return request.content
    except httpx.RequestNotRead:
        return b""
