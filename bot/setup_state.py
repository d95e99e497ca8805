"""The `state` values of the manifest flow, kept server-side, each usable once within its hour."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

STATE_TTL_S = 3600.0
MAX_PENDING = 1000


class SetupStates:
    """Random states issued by the setup page; the callback consumes one."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, ttl_s: float = STATE_TTL_S
    ) -> None:
        self._clock = clock
        self._ttl_s = ttl_s
        self._expires: dict[str, float] = {}

    def issue(self) -> str:
        self._forget_expired()
        if len(self._expires) >= MAX_PENDING:
            oldest = min(self._expires, key=self._expires.__getitem__)
            del self._expires[oldest]
        state = secrets.token_urlsafe(24)
        self._expires[state] = self._clock() + self._ttl_s
        return state

    def consume(self, state: str) -> bool:
        """True once for a state this process issued and that has not expired."""
        expires = self._expires.pop(state, None)
        return expires is not None and self._clock() < expires

    def _forget_expired(self) -> None:
        now = self._clock()
        for state in [s for s, expires in self._expires.items() if expires <= now]:
            del self._expires[state]
