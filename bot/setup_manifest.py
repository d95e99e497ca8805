"""The App manifest of `app.yml`, filled with this bot's addresses, and where GitHub takes it.

GitHub's manifest flow: a form POSTs `manifest` (JSON) to `{web}/settings/apps/new?state=S`
(or `{web}/organizations/ORG/settings/apps/new`); after the user confirms, GitHub redirects
to the manifest's `redirect_url` with `?code=...&state=S`.
"""

from __future__ import annotations

import copy
import ipaddress
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import yaml

from config.settings import Settings

MANIFEST_PATH = Path(__file__).resolve().parent.parent / "app.yml"
WEBHOOK_PATH = "/api/github/webhooks"
CALLBACK_PATH = "/setup/callback"
ORG_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")


def load_manifest(path: Path = MANIFEST_PATH) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path} must hold a mapping")
    return data


def fill_manifest(manifest: dict[str, Any], base_url: str) -> dict[str, Any]:
    """The manifest with its homepage, webhook and redirect URLs on `base_url`."""
    base = base_url.rstrip("/")
    filled = copy.deepcopy(manifest)
    filled["url"] = base
    filled.setdefault("hook_attributes", {})["url"] = base + WEBHOOK_PATH
    filled["redirect_url"] = base + CALLBACK_PATH
    return filled


def web_url(settings: Settings) -> str:
    """GitHub's web pages: GITHUB_WEB_URL, or derived from GITHUB_API_URL (GHES: `/api/v3`)."""
    if settings.github_web_url:
        return settings.github_web_url.rstrip("/")
    api = settings.github_api_url.rstrip("/")
    return "https://github.com" if api == "https://api.github.com" else api.removesuffix("/api/v3")


def new_app_url(web: str, org: str | None, state: str) -> str:
    """Where the form posts the manifest: the user's or an organization's new-App page."""
    where = f"/organizations/{quote(org)}" if org else ""
    return f"{web}{where}/settings/apps/new?state={quote(state)}"


def valid_org(org: str) -> bool:
    return bool(ORG_NAME.fullmatch(org))


def unreachable_from_github(base_url: str) -> bool:
    """True when GitHub cannot deliver webhooks there (loopback, private or `localhost`)."""
    host = urlsplit(base_url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local
