"""First-run setup: registers the GitHub App from `app.yml` through GitHub's manifest flow.

Served by `create_setup_app` when neither APP_ID nor WEBHOOK_SECRET is set: `/` posts the
manifest to GitHub with a random `state`; GitHub sends the browser back to `/setup/callback`
with a code, exchanged for the App's id, key and secrets, which go to `.env` (mode 0600).
Nothing secret is logged or shown; the last page links to the App's installation.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from bot.setup_envfile import AlreadyRegistered, EnvFile
from bot.setup_github import (
    ConversionError,
    GitHubManifestConverter,
    ManifestConverter,
    Registration,
)
from bot.setup_manifest import (
    CALLBACK_PATH,
    WEBHOOK_PATH,
    fill_manifest,
    load_manifest,
    new_app_url,
    unreachable_from_github,
    valid_org,
    web_url,
)
from bot.setup_state import SetupStates
from config.settings import Settings

log = logging.getLogger("agentium.setup")


def in_setup_mode(settings: Settings) -> bool:
    """No App yet: neither APP_ID nor WEBHOOK_SECRET is configured."""
    return settings.app_id is None and settings.webhook_secret is None


def page_headers(web: str) -> dict[str, str]:
    return {
        "Content-Security-Policy": (
            "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; "
            f"form-action 'self' {web}; frame-ancestors 'none'"
        ),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    }


def templates() -> Environment:
    return Environment(
        loader=PackageLoader("bot", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


@dataclass
class SetupPages:
    settings: Settings
    manifest: dict[str, Any]
    states: SetupStates
    env_file: EnvFile
    converter: ManifestConverter
    env: Environment

    def _render(self, name: str, status: int = 200, **context: Any) -> Response:
        html = self.env.get_template(name).render(env_path=str(self.env_file.path), **context)
        return HTMLResponse(html, status, headers=page_headers(web_url(self.settings)))

    def _problem(self, status: int, message: str) -> Response:
        return self._render("setup_problem.html", status, message=message)

    async def home(self, request: Request) -> Response:
        if self.env_file.has_app_id():
            return self._render("setup_registered.html")
        org = request.query_params.get("org", "").strip() or None
        if org is not None and not valid_org(org):
            return self._problem(400, "That is not a GitHub organization name.")
        base = (self.settings.public_url or str(request.base_url)).rstrip("/")
        state = self.states.issue()
        return self._render(
            "setup.html",
            action=new_app_url(web_url(self.settings), org, state),
            manifest=json.dumps(fill_manifest(self.manifest, base)),
            org=org or "",
            base=base,
            webhook_url=base + WEBHOOK_PATH,
            unreachable=unreachable_from_github(base),
            public_url_set=self.settings.public_url is not None,
        )

    async def callback(self, request: Request) -> Response:
        state, code = request.query_params.get("state", ""), request.query_params.get("code", "")
        if not self.states.consume(state):
            return self._problem(400, "This setup link has expired or was already used.")
        if not code:
            return self._problem(400, "GitHub sent no code.")
        if self.env_file.has_app_id():
            return self._problem(409, "The App is already registered in .env.")
        try:
            registration = await self.converter.convert(code)
        except ConversionError as exc:
            return self._problem(400 if exc.rejected else 502, f"Registration failed: {exc}.")
        return self._save(registration)

    def _save(self, registration: Registration) -> Response:
        try:
            self.env_file.write(registration.env_values())
        except AlreadyRegistered:
            return self._problem(409, "The App is already registered in .env.")
        log.info(
            "GitHub App registered",
            extra={"app_id": registration.app_id, "slug": registration.slug},
        )
        return self._render("setup_done.html", app=registration)

    async def webhook(self, request: Request) -> Response:
        message = "the App is being set up; restart `make run` when setup is done"
        return JSONResponse({"message": message}, status_code=503)

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "setup"}, status_code=503)


def create_setup_app(
    settings: Settings,
    *,
    converter: ManifestConverter | None = None,
    env_file: Path = Path(".env"),
    manifest: dict[str, Any] | None = None,
    states: SetupStates | None = None,
) -> Starlette:
    pages = SetupPages(
        settings=settings,
        manifest=manifest if manifest is not None else load_manifest(),
        states=states or SetupStates(),
        env_file=EnvFile(env_file),
        converter=converter or GitHubManifestConverter(settings.github_api_url),
        env=templates(),
    )
    routes = [
        Route("/", pages.home, methods=["GET"]),
        Route(CALLBACK_PATH, pages.callback, methods=["GET"]),
        Route(WEBHOOK_PATH, pages.webhook, methods=["POST"]),
        Route("/healthz", pages.healthz, methods=["GET"]),
    ]
    return Starlette(routes=routes)
