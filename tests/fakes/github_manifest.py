"""GitHub's App manifest flow on the fake GitHub.

:func:`confirm` stands for the person on ``{web}/settings/apps/new`` pressing "Create GitHub
App": it checks the posted manifest and returns the redirect GitHub would send the browser to
(``redirect_url?code=...&state=...``). ``POST /app-manifests/{code}/conversions`` (no
authentication) then answers once per code, within the hour, like GitHub's documented example:
the App (``apps-get-authenticated`` from the corpus) plus ``client_id``, ``client_secret``,
``webhook_secret`` and ``pem``. The App gets the fake's id and key pair, so a bot configured
from the answer authenticates to the same fake.
"""

from __future__ import annotations

import json
import re
import secrets
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from tests.fakes import github_data as data
from tests.fakes.keys import app_key_pair

if TYPE_CHECKING:
    from tests.fakes.github import FakeGitHub

Answer = tuple[int, Any]
CODE_LIFETIME_S = 3600.0
REQUIRED = ("name", "url", "hook_attributes", "redirect_url", "default_permissions")


@dataclass
class Pending:
    manifest: dict[str, Any]
    issued_at: float
    used: bool = False


_CODES: weakref.WeakKeyDictionary[FakeGitHub, dict[str, Pending]] = weakref.WeakKeyDictionary()


def codes(fake: FakeGitHub) -> dict[str, Pending]:
    return _CODES.setdefault(fake, {})


def confirm(fake: FakeGitHub, manifest_json: str, state: str) -> str:
    """The person creates the App from the posted form; returns GitHub's redirect URL."""
    manifest = json.loads(manifest_json)
    missing = [key for key in REQUIRED if key not in manifest]
    if missing or not manifest["hook_attributes"].get("url"):
        raise ValueError(f"the manifest lacks {missing or ['hook_attributes.url']}")
    code = secrets.token_hex(10)
    codes(fake)[code] = Pending(manifest, fake.clock.now())
    return f"{manifest['redirect_url']}?{urlencode({'code': code, 'state': state})}"


def slug_of(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def convert(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    pending = codes(fake).get(p["code"])
    if pending is None or pending.used or fake.clock.now() - pending.issued_at > CODE_LIFETIME_S:
        return 404, data.error("Not Found", 404)
    pending.used = True
    return 201, registered_app(pending.manifest, fake.app_id)


def registered_app(manifest: dict[str, Any], app_id: int) -> dict[str, Any]:
    app = data.example("apps-get-authenticated.200.json")
    slug = slug_of(manifest["name"])
    app.update(
        id=app_id,
        slug=slug,
        node_id=f"A_{app_id}",
        name=manifest["name"],
        description=manifest.get("description", ""),
        external_url=manifest["url"],
        html_url=f"{data.WEB}/apps/{slug}",
        permissions=manifest["default_permissions"],
        events=manifest.get("default_events", []),
        client_id=f"Iv23li{secrets.token_hex(7)}",
        client_secret=secrets.token_hex(20),
        webhook_secret=secrets.token_hex(20),
        pem=app_key_pair().private_pem,
    )
    return app
