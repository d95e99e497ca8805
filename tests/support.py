"""Helpers shared by the tests: corpus payloads and GitHub-style signed deliveries."""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).parent / "corpus"
WEBHOOKS = CORPUS / "webhooks"
SECRET = "test-webhook-secret"


def payload(event: str, name: str = "") -> dict[str, Any]:
    """A real payload from the corpus, e.g. payload("issues", "labeled")."""
    path = WEBHOOKS / event / (f"{name}.payload.json" if name else "payload.json")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def sign(body: bytes, secret: str = SECRET) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def delivery_headers(
    event: str, body: bytes, *, secret: str = SECRET, delivery: str | None = None
) -> dict[str, str]:
    return {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
        "X-Hub-Signature-256": sign(body, secret),
        "Content-Type": "application/json",
        "User-Agent": "GitHub-Hookshot/test",
    }


def encode(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode()
