"""APP_SLUG may be left unset: the App's JWT asks GitHub for it (GET /app), once."""

from __future__ import annotations

import pytest
import redis

from config import keys
from config.settings import load_settings
from tests.fakes.github import FakeGitHub
from tests.fakes.github_fixtures import APP_ID, SLUG
from workers.github.app_slug import AppSlugUnknown, app_slug, ask_github
from workers.github.client import GitHubClients


def test_github_is_asked_once_and_the_answer_cached(
    clients: GitHubClients, fake_github: FakeGitHub, redis_client: redis.Redis
) -> None:
    settings = load_settings({"APP_ID": str(APP_ID)})
    assert app_slug(settings, redis_client, lambda: ask_github(clients)) == SLUG
    assert app_slug(settings, redis_client, lambda: ask_github(clients)) == SLUG
    assert fake_github.count_by_route()["GET /app"] == 1
    assert redis_client.ttl(keys.app_slug(APP_ID)) > 3600
    [request] = fake_github.calls("GET", "/app")
    assert request.auth == "app"  # the App's JWT, not an installation token


def test_the_real_response_shape_parses(clients: GitHubClients) -> None:
    answer = clients.app().rest.apps.get_authenticated().parsed_data
    assert answer.slug == SLUG and answer.id == APP_ID and answer.owner is not None


def test_a_set_slug_wins_without_asking(redis_client: redis.Redis) -> None:
    settings = load_settings({"APP_ID": str(APP_ID), "APP_SLUG": "mine"})

    def ask() -> str:
        raise AssertionError("GitHub asked")

    assert app_slug(settings, redis_client, ask) == "mine"


def test_github_unreachable_is_a_clear_error(
    clients: GitHubClients, fake_github: FakeGitHub, redis_client: redis.Redis
) -> None:
    fake_github.fail(401, times=10, method="GET", path="/app")
    settings = load_settings({"APP_ID": str(APP_ID), "GITHUB_API_URL": fake_github.url})
    with pytest.raises(AppSlugUnknown) as raised:
        app_slug(settings, redis_client, lambda: ask_github(clients))
    message = str(raised.value)
    assert "APP_SLUG is not set" in message and f"GET {fake_github.url}/app" in message
    assert "set APP_SLUG" in message
    assert not redis_client.exists(keys.app_slug(APP_ID))
