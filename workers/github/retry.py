"""When to retry a GitHub request, and how long to wait: githubkit's ``auto_retry`` hook.

- 5xx answers and connection errors: exponential backoff (1 s, 2 s, 4 s by default).
- 403/429 rate limits: wait what ``retry-after`` says, else until ``x-ratelimit-reset``;
  a 429 without either header backs off like a 5xx. A wait longer than ``max_wait_s`` is
  not waited: the error is raised so the job can be retried later.
- Anything else (404, 422, a 403 that is a permission error) is not retried.

The wait goes through the injected clock; githubkit is told to sleep (almost) nothing.
"""

from __future__ import annotations

import logging
from datetime import timedelta

import httpx
from githubkit.exception import GitHubException, RequestError, RequestFailed
from githubkit.retry import RetryOption

from workers.github.clock import Clock

log = logging.getLogger("agentium.github.retry")

# githubkit sleeps 60 s for a falsy (zero) timedelta, so hand back a tiny positive one.
_ALREADY_WAITED = timedelta(microseconds=1)


class GitHubRetryPolicy:
    def __init__(
        self,
        clock: Clock,
        *,
        max_retries: int = 3,
        base_backoff_s: float = 1.0,
        max_wait_s: float = 60.0,
    ) -> None:
        self._clock = clock
        self._max_retries = max_retries
        self._base = base_backoff_s
        self._max_wait = max_wait_s

    def __call__(self, exc: GitHubException, retry_count: int) -> RetryOption:
        if retry_count >= self._max_retries:
            return RetryOption(False)
        wait = self.wait_for(exc, retry_count)
        if wait is None or wait > self._max_wait:
            return RetryOption(False)
        log.warning(
            "github request retried",
            extra={"reason": _reason(exc), "attempt": retry_count + 1, "wait_s": wait},
        )
        self._clock.sleep(wait)
        return RetryOption(True, _ALREADY_WAITED)

    def wait_for(self, exc: GitHubException, retry_count: int) -> float | None:
        """Seconds to wait before the next attempt; None when the error is not transient."""
        backoff: float = self._base * float(2**retry_count)
        if isinstance(exc, RequestFailed):
            raw: httpx.Response = exc.response.raw_response
            if raw.status_code >= 500:
                return backoff
            if rate_limited(raw):
                return self._rate_limit_wait(raw, backoff)
            return None
        if isinstance(exc, RequestError) and isinstance(exc.exc, httpx.TransportError):
            return backoff
        return None

    def _rate_limit_wait(self, response: httpx.Response, backoff: float) -> float | None:
        headers = response.headers
        retry_after = headers.get("retry-after", "")
        if retry_after.strip().isdigit():
            return float(retry_after)
        reset = headers.get("x-ratelimit-reset", "")
        if headers.get("x-ratelimit-remaining") == "0" and reset.strip().isdigit():
            return max(0.0, float(reset) - self._clock.now()) + 1.0
        return backoff if response.status_code == 429 else None


def rate_limited(response: httpx.Response) -> bool:
    """A 429, or a 403 that GitHub's headers mark as a rate limit (not a permission error)."""
    headers = response.headers
    return response.status_code == 429 or (
        response.status_code == 403
        and ("retry-after" in headers or headers.get("x-ratelimit-remaining") == "0")
    )


def transient(exc: BaseException) -> bool:
    """Worth trying again later, once this policy's retries are spent: a 5xx, a rate
    limit, or the connection failing (a step's effects wait with the task then)."""
    if isinstance(exc, RequestFailed):
        answer: httpx.Response = exc.response.raw_response
        return answer.status_code >= 500 or rate_limited(answer)
    return isinstance(exc, RequestError | httpx.TransportError)


def _reason(exc: GitHubException) -> str:
    if isinstance(exc, RequestFailed):
        return f"status {exc.response.status_code}"
    if isinstance(exc, RequestError):
        return type(exc.exc).__name__
    return type(exc).__name__
