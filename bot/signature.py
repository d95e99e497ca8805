"""X-Hub-Signature-256 verification (HMAC-SHA256 of the raw body, constant-time compare)."""

from __future__ import annotations

import hmac

PREFIX = b"sha256="
_LENGTH = len(PREFIX) + 64  # "sha256=" and 64 lowercase hex digits


class SignatureCheck:
    """Verifies deliveries signed with one secret; the legacy SHA-1 header is never accepted."""

    def __init__(self, secret: str) -> None:
        self._key = secret.encode()

    def valid(self, body: bytes, header: bytes | None) -> bool:
        """True only for a well-formed sha256 signature of `body` (compared as bytes, so a
        header of any characters is simply wrong, never an error)."""
        if not header or len(header) != _LENGTH or not header.startswith(PREFIX):
            return False
        expected = hmac.digest(self._key, body, "sha256").hex().encode()
        return hmac.compare_digest(header[len(PREFIX) :], expected)


def signature_valid(secret: str, body: bytes, header: str | None) -> bool:
    """`SignatureCheck(secret).valid` for a header given as text."""
    raw = header.encode("utf-8", "surrogateescape") if header is not None else None
    return SignatureCheck(secret).valid(body, raw)
