"""Missed deliveries: ask GitHub to send again the webhooks the receiver did not take, once.

GitHub logs every delivery it sends the App (``GET /app/hook/deliveries``, App JWT). A
delivery that failed for a reason that may pass (no answer or a timeout: status code 0; a
5xx such as the receiver's 503 while Redis was down; 408; 429) is redelivered
(``POST /app/hook/deliveries/{id}/attempts``) unless

- our Redis already holds its guid as seen (the guid is the ``X-GitHub-Delivery``), or
- it was redelivered already: its guid is claimed in Redis (``SET NX``, kept a day) before
  the POST, so two reconcilers never both ask, and a redelivery that fails again is not
  asked a second time.

Other 4xx answers (bad signature, malformed body, over 25 MB) are the receiver's considered
answer; sent again, they would get it again. The listing is bounded: the last ``LOOKBACK``
and at most ``MAX_PAGES`` pages. The job runs every ``RECONCILE_EVERY``, schedules its
successor and is seeded by every worker at start, like the sweep (``workers.engine.scheduling``):
one job id per interval, so the chains of several workers merge into one.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import httpx
from githubkit.exception import GitHubException
from githubkit.utils import UNSET
from githubkit_schemas.latest.models import HookDeliveryItem
from redis import Redis
from rq import Queue
from rq.exceptions import DuplicateJobError

from config import keys
from workers.github.client import GitHubClient
from workers.tasks.record import utcnow

log = logging.getLogger("agentium.reconcile")

RECONCILE_JOB = "workers.intake.reconcile.reconcile_job"
RECONCILE_EVERY = timedelta(minutes=5)
LOOKBACK = timedelta(hours=1)
MAX_PAGES = 10
PER_PAGE = 100
CLAIM_TTL_S = 24 * 3600  # far longer than LOOKBACK: a claimed guid is never listed again
RETRYABLE_4XX = frozenset({408, 429})


@dataclass
class Reconciled:
    listed: int = 0
    redelivered: list[int] = field(default_factory=list)  # GitHub's delivery ids


def failed_for_now(item: HookDeliveryItem) -> bool:
    """A failure another attempt may get past."""
    code = item.status_code
    return code == 0 or code >= 500 or code in RETRYABLE_4XX


def next_cursor(response: httpx.Response) -> str | None:
    """The ``cursor`` of the ``rel="next"`` link, or None on the last page."""
    link = response.links.get("next")
    return httpx.URL(link["url"]).params.get("cursor") if link else None


def failed_deliveries(
    app: GitHubClient, since: datetime, max_pages: int = MAX_PAGES
) -> Iterator[HookDeliveryItem]:
    """The App's failed deliveries since ``since``, newest first, at most ``max_pages``."""
    cursor: str | None = None
    for _ in range(max_pages):
        answer = app.rest.apps.list_webhook_deliveries(
            per_page=PER_PAGE, cursor=UNSET if cursor is None else cursor, status="failure"
        )
        for item in answer.parsed_data:
            if item.delivered_at < since:
                return
            yield item
        cursor = next_cursor(answer.raw_response)
        if cursor is None:
            return


def redeliver_once(app: GitHubClient, redis: Redis, item: HookDeliveryItem) -> bool:
    """Ask for another attempt unless it was asked for already; a failed ask is undone."""
    claim = keys.redelivered(item.guid)
    if not redis.set(claim, item.id, nx=True, ex=CLAIM_TTL_S):
        return False
    try:
        app.rest.apps.redeliver_webhook_delivery(item.id)
    except GitHubException:
        redis.delete(claim)
        log.warning("redelivery refused", extra={"delivery": item.guid, "hook_id": item.id})
        return False
    log.info(
        "redelivered",
        extra={"delivery": item.guid, "hook_id": item.id, "status": item.status_code},
    )
    return True


def reconcile(app: GitHubClient, redis: Redis, now: datetime) -> Reconciled:
    """One pass over the last ``LOOKBACK`` of deliveries."""
    done = Reconciled()
    for item in failed_deliveries(app, now - LOOKBACK):
        done.listed += 1
        if not failed_for_now(item) or redis.exists(keys.delivery_seen(item.guid)):
            continue
        if redeliver_once(app, redis, item):
            done.redelivered.append(item.id)
    return done


def _bucket(when: datetime) -> int:
    return int(when.timestamp() // RECONCILE_EVERY.total_seconds())


def schedule_reconcile(queue: Queue, bucket: int | None = None) -> None:
    """One reconcile job per interval, whoever asks (every worker does at start)."""
    bucket = bucket if bucket is not None else _bucket(utcnow())
    try:
        queue.enqueue_in(
            RECONCILE_EVERY,
            RECONCILE_JOB,
            job_id=f"reconcile-{bucket}",
            unique=True,
            result_ttl=int(2 * RECONCILE_EVERY.total_seconds()),  # keeps the id taken
        )
    except DuplicateJobError:
        return


def reconcile_job() -> int:
    """The RQ job: one pass, then the next one scheduled (even when this one failed)."""
    from workers import jobs

    rt = jobs.runtime()
    now = utcnow()
    try:
        return len(reconcile(rt.github.app(), rt.redis, now).redelivered)
    except GitHubException:
        log.warning("cannot list webhook deliveries", exc_info=True)
        return 0
    finally:
        schedule_reconcile(rt.queue, _bucket(now) + 1)
