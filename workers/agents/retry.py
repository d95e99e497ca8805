"""When and how long to wait before retrying a model call.

Transient: 429, 529 and other 5xx, 408, 409, connection errors. Never retried: 400 and the
other 4xx (content errors are feedback, not weather). ``x-should-retry`` from the server
wins over the status, except that a 400 is never retried. A ``retry-after-ms`` or
``retry-after`` (seconds or an HTTP date) is honoured up to ``max_delay``; without one the
wait doubles from ``base_delay`` with jitter.
"""

from __future__ import annotations

import email.utils
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from workers.agents.settings import RetrySettings

_TRANSIENT_STATUS = frozenset({408, 409, 429})


def is_transient(status: int | None, headers: Mapping[str, str]) -> bool:
    """Whether an error with ``status`` (None: no response at all) may be retried."""
    if status is None:
        return True
    if status == 400:
        return False
    hint = headers.get("x-should-retry", "").strip().lower()
    if hint in ("true", "false"):
        return hint == "true"
    return status in _TRANSIENT_STATUS or status >= 500


def retry_after(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds the server asked us to wait, or None when it said nothing usable."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            value = float(millis) / 1000
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value
    raw = headers.get("retry-after", "").strip()
    if not raw:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        parsed = email.utils.parsedate_tz(raw)
        if parsed is None:
            return None
        seconds = email.utils.mktime_tz(parsed) - now
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


@dataclass(frozen=True)
class ModelRetryPolicy:
    settings: RetrySettings
    random: Callable[[], float]

    def backoff(self, attempt: int) -> float:
        """The wait after failed attempt ``attempt`` (1-based) when the server gave none."""
        base = self.settings.base_delay * 2.0 ** (attempt - 1)
        jitter = 1 - 0.25 * self.random()
        return min(base, self.settings.max_delay) * jitter

    def delay(self, attempt: int, headers: Mapping[str, str], now: float) -> float:
        asked = retry_after(headers, now)
        if asked is None:
            return self.backoff(attempt)
        return min(asked, self.settings.max_delay)

    def next_wait(
        self, attempt: int, waited: float, headers: Mapping[str, str], now: float
    ) -> float | None:
        """The wait before attempt ``attempt + 1``; None when the retry budget is spent."""
        if attempt >= self.settings.max_attempts:
            return None
        wait = self.delay(attempt, headers, now)
        if waited + wait > self.settings.max_total_wait:
            return None
        return wait
