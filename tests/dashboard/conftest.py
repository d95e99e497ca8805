"""The web app on the real Redis, seen from a chosen client address."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack

import pytest
import redis
from starlette.testclient import TestClient

from bot.app import create_app
from config.settings import load_settings
from tests.support import SECRET

TOKEN = "dashboard-token-0123456789"
LOCAL = ("127.0.0.1", 50000)
LOCAL_URL = "http://127.0.0.1:3000"

MakeClient = Callable[..., TestClient]


@pytest.fixture
def make_client(redis_url: str, redis_client: redis.Redis) -> Iterator[MakeClient]:
    """``make_client(token=None, client=LOCAL, base_url=LOCAL_URL)``: a started TestClient."""
    with ExitStack() as stack:

        def make(
            token: str | None = None,
            client: tuple[str, int] = LOCAL,
            base_url: str = LOCAL_URL,
            url: str = redis_url,
        ) -> TestClient:
            env = {"WEBHOOK_SECRET": SECRET, "REDIS_URL": url}
            if token:
                env["DASHBOARD_TOKEN"] = token
            app = create_app(load_settings(env), dispatch=False)
            test_client = TestClient(app, client=client, base_url=base_url)
            return stack.enter_context(test_client)

        yield make


@pytest.fixture
def local(make_client: MakeClient) -> TestClient:
    return make_client()
