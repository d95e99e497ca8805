"""The App's slug when ``APP_SLUG`` is unset: asked of GitHub with the App's JWT.

    slug = app_slug(settings, redis, lambda: ask_github(clients))

``GET /app`` answers the authenticated App, slug included (Probot asks the same way), so
an installation needs only ``APP_ID`` and the key. The answer is cached in Redis for a
day, so workers starting later ask Redis, not GitHub; a slug set in the environment wins.
The slug names the bot user (``SLUG[bot]``: assignments, commits), so a worker that can
find it neither way refuses to start with a message saying why.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from redis import Redis

from config import keys
from config.settings import Settings
from workers.github.client import GitHubClients

log = logging.getLogger("agentium.github.app")

CACHE_TTL_S = 24 * 3600
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,33}$")


class AppSlugUnknown(RuntimeError):
    """APP_SLUG is unset and GitHub could not be asked for it."""


def ask_github(clients: GitHubClients) -> str:
    """``GET /app`` as the App: its slug."""
    app = clients.app().rest.apps.get_authenticated().parsed_data
    if app is None or not app.slug:
        raise ValueError("GitHub's answer names no App")
    return app.slug


def app_slug(settings: Settings, redis: Redis, ask: Callable[[], str]) -> str:
    """APP_SLUG, else the cached answer, else GitHub's (then cached)."""
    if settings.app_slug:
        return settings.app_slug
    if settings.app_id is None:
        raise AppSlugUnknown("APP_SLUG is not set and neither is APP_ID, to ask GitHub with")
    key = keys.app_slug(settings.app_id)
    cached = redis.get(key)
    if cached is not None:
        return cached.decode() if isinstance(cached, bytes) else str(cached)
    try:
        slug = ask()
    except Exception as error:  # any failure to ask: the message says what it was
        raise AppSlugUnknown(
            f"APP_SLUG is not set and GitHub could not be asked for it "
            f"(GET {settings.github_api_url.rstrip('/')}/app: {type(error).__name__}: "
            f"{str(error)[:200]}); set APP_SLUG to the App's slug"
        ) from None
    if not SLUG.match(slug):
        raise AppSlugUnknown(f"GitHub answered GET /app with an unusable slug {slug[:40]!r}")
    redis.set(key, slug, ex=CACHE_TTL_S)
    log.info("app slug asked of GitHub", extra={"slug": slug})
    return slug
