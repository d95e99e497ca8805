"""App JWT and installation tokens: cached in Redis, refreshed well before their expiry.

The App authenticates with a short JWT (issued 60 s in the past against clock drift, valid
10 minutes); with it the bot mints an installation token (valid one hour), which every
worker shares through Redis. A token with less than ``REFRESH_MARGIN_S`` left is replaced,
so a task that runs for hours (or a long ``git push``) never holds an expired one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import httpx
import jwt
from githubkit.auth.base import BaseAuthStrategy
from pydantic import SecretStr
from redis import Redis

from config import keys
from workers.github.clock import Clock

if TYPE_CHECKING:
    from githubkit import GitHubCore

log = logging.getLogger("agentium.github.auth")

JWT_BACKDATE_S = 60
JWT_LIFETIME_S = 600
REFRESH_MARGIN_S = 10 * 60


@dataclass(frozen=True)
class AppCredentials:
    app_id: int
    private_key: SecretStr


@dataclass(frozen=True)
class IssuedToken:
    token: str
    expires_at: float  # epoch seconds

    def __repr__(self) -> str:
        return f"IssuedToken(token=***, expires_at={self.expires_at})"


def app_jwt(credentials: AppCredentials, now: float) -> str:
    """An RS256 JWT for the App: ``iat`` 60 s in the past, ``exp`` 10 minutes after ``iat``."""
    issued = int(now) - JWT_BACKDATE_S
    claims = {"iat": issued, "exp": issued + JWT_LIFETIME_S, "iss": str(credentials.app_id)}
    return jwt.encode(claims, credentials.private_key.get_secret_value(), algorithm="RS256")


class TokenMinter(Protocol):
    def mint(self, installation_id: int) -> IssuedToken: ...


class InstallationTokens:
    """Installation tokens shared by all workers through Redis."""

    def __init__(
        self,
        redis: Redis,
        clock: Clock,
        minter: TokenMinter,
        refresh_margin_s: float = REFRESH_MARGIN_S,
    ) -> None:
        self._redis = redis
        self._clock = clock
        self._minter = minter
        self._margin = refresh_margin_s

    def get(self, installation_id: int) -> str:
        cached = self._cached(installation_id)
        if cached is not None and cached.expires_at - self._clock.now() > self._margin:
            return cached.token
        return self._refresh(installation_id).token

    def invalidate(self, installation_id: int, token: str) -> None:
        """Forget ``token`` (GitHub answered 401 to it); a newer cached token is kept."""
        cached = self._cached(installation_id)
        if cached is not None and cached.token == token:
            self._redis.delete(keys.installation_token(installation_id))

    def _cached(self, installation_id: int) -> IssuedToken | None:
        raw = self._redis.get(keys.installation_token(installation_id))
        if raw is None:
            return None
        data = json.loads(raw)
        return IssuedToken(str(data["token"]), float(data["expires_at"]))

    def _refresh(self, installation_id: int) -> IssuedToken:
        issued = self._minter.mint(installation_id)
        ttl = max(1, int(issued.expires_at - self._clock.now()))
        payload = json.dumps({"token": issued.token, "expires_at": issued.expires_at})
        self._redis.set(keys.installation_token(installation_id), payload, ex=ttl)
        log.info(
            "installation token minted",
            extra={"installation_id": installation_id, "expires_at": issued.expires_at},
        )
        return issued


class _InstallationAuth(httpx.Auth):
    def __init__(self, tokens: InstallationTokens, installation_id: int) -> None:
        self._tokens = tokens
        self._installation_id = installation_id

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        token = self._tokens.get(self._installation_id)
        request.headers["Authorization"] = f"token {token}"
        response = yield request
        if response.status_code == 401:
            # Revoked or expired early: mint a fresh token and try once more.
            self._tokens.invalidate(self._installation_id, token)
            request.headers["Authorization"] = f"token {self._tokens.get(self._installation_id)}"
            yield request


class InstallationAuthStrategy(BaseAuthStrategy):
    """githubkit auth that asks :class:`InstallationTokens` for the token on every request."""

    def __init__(self, tokens: InstallationTokens, installation_id: int) -> None:
        self._tokens = tokens
        self.installation_id = installation_id

    def get_auth_flow(self, github: GitHubCore[Any]) -> httpx.Auth:
        return _InstallationAuth(self._tokens, self.installation_id)


class _JwtAuth(httpx.Auth):
    def __init__(self, credentials: AppCredentials, clock: Clock) -> None:
        self._credentials = credentials
        self._clock = clock

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = f"Bearer {app_jwt(self._credentials, self._clock.now())}"
        yield request


class AppJwtAuthStrategy(BaseAuthStrategy):
    """githubkit auth as the App itself (a fresh JWT per request)."""

    def __init__(self, credentials: AppCredentials, clock: Clock) -> None:
        self._credentials = credentials
        self._clock = clock

    def get_auth_flow(self, github: GitHubCore[Any]) -> httpx.Auth:
        return _JwtAuth(self._credentials, self._clock)
