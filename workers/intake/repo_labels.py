"""Which label triggers the bot in a repository: its `.github/agentium.yml`, cached.

Only a label event whose label is not the default trigger asks; the answer is kept in
Redis for a few minutes, so a busy repository costs one GitHub request per interval.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from redis import Redis

from config import keys
from workers.intake.payloads import Event

log = logging.getLogger("agentium.repo_labels")

CACHE_S = 600

# (repository, installation id, default branch) -> the repository's trigger label
Fetch = Callable[[str, int, str], str]


def remember(redis: Redis, repo: str, label: str) -> None:
    redis.set(keys.repo_label(repo), label, ex=CACHE_S)


class RepoLabels:
    def __init__(self, redis: Redis, fetch: Fetch, default: str) -> None:
        self._redis, self._fetch, self._default = redis, fetch, default

    def __call__(self, event: Event) -> str:
        repo, installation = event.repository, event.installation
        if repo is None or installation is None:
            return self._default
        cached = self._redis.get(keys.repo_label(repo.full_name))
        if cached is not None:
            return cached.decode() if isinstance(cached, bytes) else str(cached)
        try:
            label = self._fetch(repo.full_name, installation.id, repo.default_branch or "main")
        except Exception:
            log.exception(
                "cannot read the repository's trigger label", extra={"repo": repo.full_name}
            )
            return self._default
        remember(self._redis, repo.full_name, label)
        return label
