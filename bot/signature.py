"""X-Hub-Signature-256 verification (HMAC-SHA256 of the raw body, constant-time compare)."""

from __future__ import annotations

from githubkit.webhooks import verify

PREFIX = "sha256="


def signature_valid(secret: str, body: bytes, header: str | None) -> bool:
    """True only for a well-formed sha256 signature of `body` under `secret`.

    The legacy SHA-1 header is never accepted; githubkit's `verify` compares with
    `hmac.compare_digest`.
    """
    if not header or not header.startswith(PREFIX) or len(header) != len(PREFIX) + 64:
        return False
    return verify(secret, body, header)
