"""Who may see the dashboard and /metrics.

With ``DASHBOARD_TOKEN`` set: a request must carry it as ``Authorization: Bearer TOKEN``, as
``?token=TOKEN`` (which sets an HttpOnly, SameSite=Strict cookie and, on the HTML pages,
redirects to the same address without the token), or carry that cookie. Compared in
constant time; the cookie holds an HMAC of the token, not the token.

Without it: only a client on loopback (127.0.0.0/8, ::1) that names a loopback host (so a
DNS-rebound page cannot read it) and came through no proxy (no ``Forwarded``,
``X-Forwarded-For`` or ``X-Real-IP``: a tunnel on the same host must not expose it).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from collections.abc import Awaitable, Callable
from enum import Enum

from pydantic import SecretStr
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response

COOKIE = "agentium_dashboard"
COOKIE_MAX_AGE_S = 30 * 24 * 3600
PROXY_HEADERS = ("forwarded", "x-forwarded-for", "x-real-ip")
LOOPBACK_NAMES = frozenset({"localhost", "localhost."})

Endpoint = Callable[[Request], Awaitable[Response]]


class Access(Enum):
    ALLOWED = "allowed"
    BY_QUERY = "by_query"  # allowed; set the cookie
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"


def _loopback_address(text: str) -> bool:
    try:
        address = ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def _loopback_host(host: str) -> bool:
    name = host[1:].partition("]")[0] if host.startswith("[") else host.partition(":")[0]
    return name.lower() in LOOPBACK_NAMES or _loopback_address(name)


def is_local(request: Request) -> bool:
    if request.client is None or not _loopback_address(request.client.host):
        return False
    if any(name in request.headers for name in PROXY_HEADERS):
        return False
    return _loopback_host(request.headers.get("host", ""))


class DashboardGuard:
    def __init__(self, token: SecretStr | None) -> None:
        secret = token.get_secret_value().encode() if token else None
        self._token = secret
        self._cookie = (
            hmac.new(secret, b"agentium dashboard cookie", hashlib.sha256).hexdigest()
            if secret
            else None
        )

    def decide(self, request: Request) -> Access:
        if self._token is None:
            return Access.ALLOWED if is_local(request) else Access.FORBIDDEN
        if self._matches(self._token, _bearer(request)):
            return Access.ALLOWED
        if self._cookie and self._matches(self._cookie.encode(), request.cookies.get(COOKIE)):
            return Access.ALLOWED
        if self._matches(self._token, request.query_params.get("token")):
            return Access.BY_QUERY
        return Access.UNAUTHORIZED

    def remember(self, request: Request, response: Response) -> None:
        """Set the cookie that stands for the token on later requests."""
        assert self._cookie is not None
        secure = request.url.scheme == "https"
        response.set_cookie(
            COOKIE, self._cookie, max_age=COOKIE_MAX_AGE_S, httponly=True,
            samesite="strict", secure=secure, path="/",
        )  # fmt: skip

    @staticmethod
    def _matches(expected: bytes, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(expected, given.encode())


def _bearer(request: Request) -> str | None:
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def _without_token(request: Request) -> str:
    url = request.url.remove_query_params("token")
    return f"{url.path}?{url.query}" if url.query else url.path


def guarded(guard: DashboardGuard, endpoint: Endpoint, *, redirect: bool = True) -> Endpoint:
    """``endpoint`` behind the access rule; ``redirect`` drops ``?token=`` from the address."""

    async def checked(request: Request) -> Response:
        decision = guard.decide(request)
        if decision is Access.FORBIDDEN:
            return PlainTextResponse(
                "forbidden: set DASHBOARD_TOKEN to see this from another host", status_code=403
            )
        if decision is Access.UNAUTHORIZED:
            return PlainTextResponse(
                "dashboard token required", status_code=401, headers={"WWW-Authenticate": "Bearer"}
            )
        if decision is Access.ALLOWED:
            return await endpoint(request)
        response = (
            RedirectResponse(_without_token(request), status_code=303)
            if redirect
            else await endpoint(request)
        )
        guard.remember(request, response)
        return response

    return checked
