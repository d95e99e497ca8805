"""The web process's composition root: the only place the web side builds clients."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from redis import Redis
from redis.asyncio import Redis as AsyncRedis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry
from rq import Queue
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from bot.dashboard.access import DashboardGuard, guarded
from bot.dashboard.reader import TaskReader
from bot.dashboard.rows import Links
from bot.dashboard.views import DashboardViews, dashboard_routes
from bot.dispatch import Dispatcher, DispatcherThread
from bot.intake import Intake
from bot.logs import configure_logging
from bot.metrics import MetricsEndpoint, ReceiverMetrics
from bot.setup import create_setup_app, in_setup_mode
from bot.webhooks import RECEIVER_STATE, WEBHOOK_PATH, WebhookReceiver
from config.settings import Settings, load_settings

HEALTH_TIMEOUT_S = 1.0


@dataclass
class Clients:
    redis: AsyncRedis
    sync_redis: Redis
    queue: Queue


def build_clients(settings: Settings) -> Clients:
    """Redis clients that fail fast (a webhook must get its 503 in time, not in seconds)."""
    settings.require("redis_url")
    url = str(settings.redis_url)
    # Two quick retries on a dropped connection: a pooled connection that a Redis restart
    # closed is replaced at once instead of failing the delivery with a 503.
    retry = Retry(ExponentialBackoff(cap=0.1, base=0.01), 2)
    errors = [RedisConnectionError, RedisTimeoutError]
    sync_redis = Redis.from_url(
        url, socket_connect_timeout=1.0, socket_timeout=5.0, retry=retry, retry_on_error=errors
    )
    async_retry = AsyncRetry(ExponentialBackoff(cap=0.1, base=0.01), 2)
    async_redis = AsyncRedis.from_url(
        url,
        socket_connect_timeout=1.0,
        socket_timeout=2.0,
        retry=async_retry,
        retry_on_error=errors,
    )
    return Clients(
        redis=async_redis,
        sync_redis=sync_redis,
        queue=Queue(settings.queue_name, connection=sync_redis),
    )


def create_app(
    settings: Settings, clients: Clients | None = None, *, dispatch: bool = True
) -> Starlette:
    settings.require("webhook_secret", "redis_url")
    assert settings.webhook_secret is not None
    clients = clients or build_clients(settings)
    metrics = ReceiverMetrics()
    receiver = WebhookReceiver(
        settings.webhook_secret.get_secret_value(), Intake(clients.redis), observer=metrics
    )
    reader, guard = TaskReader(clients.redis), DashboardGuard(settings.dashboard_token)
    scrape = MetricsEndpoint(metrics, reader, settings.queue_name)

    async def healthz(request: Request) -> Response:
        try:
            await clients.redis.ping()
        except Exception:
            return JSONResponse({"status": "unavailable", "redis": "down"}, status_code=503)
        return JSONResponse({"status": "ok", "redis": "up"})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, object]]:
        thread = (
            DispatcherThread(Dispatcher(clients.sync_redis, clients.queue)) if dispatch else None
        )
        if thread:
            thread.start()
        try:
            yield {RECEIVER_STATE: receiver}  # for bot.hookserver, which answers deliveries
        finally:
            if thread:
                thread.stop()
            await clients.redis.aclose()
            clients.sync_redis.close()

    routes = [
        Route(WEBHOOK_PATH, receiver, methods=["POST"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/metrics", guarded(guard, scrape, redirect=False), methods=["GET"]),
        *dashboard_routes(DashboardViews(reader, Links(settings.git_base_url)), guard),
    ]
    return ReceiverFirst(receiver, routes=routes, lifespan=lifespan)


class ReceiverFirst(Starlette):
    """Starlette, with a delivery (a POST to the webhook path) handed to the receiver before
    the middleware and the router: the path every delivery takes skips what only the
    dashboard needs. Anything else, a GET of the webhook path included, is routed as usual.
    """

    def __init__(
        self,
        receiver: WebhookReceiver,
        *,
        routes: Sequence[BaseRoute],
        lifespan: Callable[[Starlette], AbstractAsyncContextManager[dict[str, object]]],
    ) -> None:
        super().__init__(routes=routes, lifespan=lifespan)
        self._receiver = receiver

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == WEBHOOK_PATH and scope["method"] == "POST":
            await self._receiver(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def create_app_from_env() -> Starlette:
    """uvicorn's factory: `uvicorn --factory bot.app:create_app_from_env`, with the
    dispatcher as a thread of the web process (`agentium web`).

    Without APP_ID and WEBHOOK_SECRET it serves the first-run setup instead (bot/setup.py).
    """
    return _from_env(dispatch=True)


def create_receiver_from_env() -> Starlette:
    """The same without the dispatcher thread (`agentium web --no-dispatch`), for when the
    dispatcher runs as its own process (`agentium dispatch`, which `agentium run` starts)."""
    return _from_env(dispatch=False)


def _from_env(*, dispatch: bool) -> Starlette:
    settings = load_settings()
    configure_logging(settings.log_level)
    if in_setup_mode(settings):
        return create_setup_app(settings)
    return create_app(settings, dispatch=dispatch)


def run_dispatcher(settings: Settings, stop: threading.Event) -> None:
    """`agentium dispatch`: turn intake entries into RQ jobs until `stop` is set."""
    settings.require("redis_url")
    clients = build_clients(settings)
    thread = DispatcherThread(Dispatcher(clients.sync_redis, clients.queue))
    thread.start()
    try:
        stop.wait()
    finally:
        thread.stop()
        clients.sync_redis.close()
