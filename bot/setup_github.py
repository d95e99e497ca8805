"""Exchanges the manifest flow's code for the new App's credentials (no authentication).

`POST /app-manifests/{code}/conversions` answers once per code, within an hour of its issue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from githubkit import GitHub, UnauthAuthStrategy
from githubkit.exception import GitHubException, RequestFailed
from pydantic import SecretStr

CODE = re.compile(r"^[A-Za-z0-9_-]{1,200}$")


class ConversionError(Exception):
    """GitHub did not hand over the App; `rejected` when it refused the code itself."""

    def __init__(self, message: str, *, rejected: bool) -> None:
        super().__init__(message)
        self.rejected = rejected


@dataclass(frozen=True)
class Registration:
    app_id: int
    slug: str
    name: str
    html_url: str
    client_id: str
    client_secret: SecretStr
    webhook_secret: SecretStr
    pem: SecretStr

    def env_values(self) -> dict[str, str | SecretStr]:
        """What `.env` gets, with Probot's names."""
        values: dict[str, str | SecretStr] = {"APP_ID": str(self.app_id)}
        if self.slug:
            values["APP_SLUG"] = self.slug
        return values | {
            "PRIVATE_KEY": self.pem,
            "WEBHOOK_SECRET": self.webhook_secret,
            "GITHUB_CLIENT_ID": self.client_id,
            "GITHUB_CLIENT_SECRET": self.client_secret,
        }

    @property
    def install_url(self) -> str:
        return f"{self.html_url.rstrip('/')}/installations/new"


class ManifestConverter(Protocol):
    async def convert(self, code: str) -> Registration: ...


class GitHubManifestConverter:
    """The real conversion through githubkit, against GITHUB_API_URL."""

    def __init__(self, api_url: str, timeout_s: float = 30.0) -> None:
        self._github = GitHub(UnauthAuthStrategy(), base_url=api_url, timeout=timeout_s)

    async def convert(self, code: str) -> Registration:
        if not CODE.fullmatch(code):
            raise ConversionError("the code is malformed", rejected=True)
        try:
            response = await self._github.rest.apps.async_create_from_manifest(code)
        except RequestFailed as exc:
            status = exc.response.status_code
            raise ConversionError(f"GitHub answered {status}", rejected=status < 500) from None
        except GitHubException as exc:
            raise ConversionError(
                f"GitHub could not be reached ({type(exc).__name__})", rejected=False
            ) from None
        app = response.parsed_data
        if not app.webhook_secret:
            raise ConversionError("GitHub returned no webhook secret", rejected=False)
        return Registration(
            app_id=app.id,
            slug=app.slug or "",
            name=app.name,
            html_url=app.html_url,
            client_id=app.client_id,
            client_secret=SecretStr(app.client_secret),
            webhook_secret=SecretStr(app.webhook_secret),
            pem=SecretStr(app.pem),
        )
