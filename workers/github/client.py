"""One githubkit client per installation (and one as the App), built by the composition root.

>>> clients = GitHubClients.from_settings(settings, redis)   # in workers/jobs.py
>>> gh = clients.installation(record.installation_id)        # githubkit GitHub, sync API
>>> token = clients.token(record.installation_id)            # for git, never logged
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
from githubkit import GitHub
from githubkit.auth.base import BaseAuthStrategy
from redis import Redis

from config.settings import Settings
from workers.github.auth import (
    AppCredentials,
    AppJwtAuthStrategy,
    InstallationAuthStrategy,
    InstallationTokens,
    IssuedToken,
)
from workers.github.clock import Clock, SystemClock
from workers.github.pool import ProcessPool
from workers.github.retry import GitHubRetryPolicy
from workers.github.spacing import WriteSpacer
from workers.github.transport import ObservedTransport

GitHubClient = GitHub[Any]


@dataclass(frozen=True)
class ClientOptions:
    base_url: str = "https://api.github.com"
    write_interval_s: float = 1.0
    timeout_s: float = 30.0
    max_retries: int = 3
    base_backoff_s: float = 1.0
    max_wait_s: float = 60.0
    user_agent: str = "agentium-bot"


class AppTokenMinter:
    """Mints installation tokens with the App's JWT client."""

    def __init__(self, app: GitHubClient) -> None:
        self._app = app

    def mint(self, installation_id: int) -> IssuedToken:
        answer = self._app.rest.apps.create_installation_access_token(installation_id)
        issued = answer.parsed_data
        expires = datetime.fromisoformat(issued.expires_at)
        if expires.tzinfo is None:
            expires = expires.replace(tzinfo=UTC)
        return IssuedToken(issued.token, expires.timestamp())


class GitHubClients:
    """Builds and keeps (githubkit wants them kept referenced) the clients of one process."""

    def __init__(
        self,
        credentials: AppCredentials,
        redis: Redis,
        clock: Clock,
        options: ClientOptions,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._clock = clock
        self._options = options
        self._transport = transport
        # One TLS context for every client of the process: building one reads the CA bundle
        # (~20 ms), and each step's work-horse builds its installation's client anew.
        self._tls = httpx.create_ssl_context()
        self._spacer = WriteSpacer(redis, clock, options.write_interval_s)
        self._app = self._build(AppJwtAuthStrategy(credentials, clock), None)
        self.tokens = InstallationTokens(redis, clock, AppTokenMinter(self._app))
        self._installations: dict[int, GitHubClient] = {}

    @classmethod
    def from_settings(
        cls, settings: Settings, redis: Redis, clock: Clock | None = None, **options: Any
    ) -> GitHubClients:
        settings.require("app_id", "private_key")
        assert settings.app_id is not None and settings.private_key is not None
        credentials = AppCredentials(settings.app_id, settings.private_key)
        opts = ClientOptions(base_url=settings.github_api_url, **options)
        return cls(credentials, redis, clock or SystemClock(), opts)

    def app(self) -> GitHubClient:
        return self._app

    def installation(self, installation_id: int) -> GitHubClient:
        client = self._installations.get(installation_id)
        if client is None:
            strategy = InstallationAuthStrategy(self.tokens, installation_id)
            client = self._build(strategy, installation_id)
            self._installations[installation_id] = client
        return client

    def token(self, installation_id: int) -> str:
        """A valid installation token (for git); refreshed when near its expiry."""
        return self.tokens.get(installation_id)

    def _build(self, auth: BaseAuthStrategy, installation_id: int | None) -> GitHubClient:
        inner = self._transport or ProcessPool(lambda: httpx.HTTPTransport(verify=self._tls))
        transport = ObservedTransport(
            inner,
            installation_id=installation_id,
            spacer=self._spacer if installation_id is not None else None,
        )
        retry = GitHubRetryPolicy(
            self._clock,
            max_retries=self._options.max_retries,
            base_backoff_s=self._options.base_backoff_s,
            max_wait_s=self._options.max_wait_s,
        )
        return GitHub(
            auth,
            base_url=self._options.base_url,
            timeout=self._options.timeout_s,
            user_agent=self._options.user_agent,
            transport=transport,
            http_cache=False,
            auto_retry=retry,
        )
