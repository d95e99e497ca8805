"""Who may see /tasks and /metrics: the token (header, query, cookie) or loopback."""

from __future__ import annotations

import pytest

from bot.dashboard.access import COOKIE
from tests.dashboard.conftest import TOKEN, MakeClient

PATHS = ("/tasks", "/tasks/a/b/1", "/metrics")
REMOTE = ("10.0.0.5", 1234)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    ("client", "base_url"),
    [
        (("127.0.0.1", 5000), "http://127.0.0.1:3000"),
        (("127.8.9.10", 5000), "http://localhost:3000"),
        (("::1", 5000), "http://[::1]:3000"),
    ],
)
def test_without_a_token_loopback_may_look(
    make_client: MakeClient, path: str, client: tuple[str, int], base_url: str
) -> None:
    assert make_client(client=client, base_url=base_url).get(path).status_code in (200, 404)


@pytest.mark.parametrize("path", PATHS)
def test_without_a_token_other_hosts_are_refused(make_client: MakeClient, path: str) -> None:
    answer = make_client(client=REMOTE).get(path)
    assert answer.status_code == 403 and "DASHBOARD_TOKEN" in answer.text


def test_without_a_token_proxied_or_rebound_requests_are_refused(make_client: MakeClient) -> None:
    local = make_client()
    assert local.get("/tasks", headers={"X-Forwarded-For": "203.0.113.9"}).status_code == 403
    assert local.get("/tasks", headers={"Forwarded": "for=203.0.113.9"}).status_code == 403
    assert local.get("/tasks", headers={"Host": "evil.example:3000"}).status_code == 403
    assert make_client(client=("testclient", 1)).get("/tasks").status_code == 403


@pytest.mark.parametrize("path", PATHS)
def test_with_a_token_even_loopback_needs_it(make_client: MakeClient, path: str) -> None:
    client = make_client(token=TOKEN)
    refused = client.get(path)
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
    wrong = client.get(path, headers={"Authorization": f"Bearer {TOKEN}x"})
    assert wrong.status_code == 401
    assert client.get(path, headers={"Authorization": f"Bearer {TOKEN[:-1]}"}).status_code == 401
    assert client.get(path, headers={"Authorization": f"Basic {TOKEN}"}).status_code == 401
    good = client.get(path, headers={"Authorization": f"Bearer {TOKEN}"})
    assert good.status_code in (200, 404)


def test_bearer_works_from_anywhere(make_client: MakeClient) -> None:
    client = make_client(token=TOKEN, client=REMOTE)
    assert client.get("/tasks", headers={"Authorization": f"bearer {TOKEN}"}).status_code == 200


def test_query_token_sets_a_strict_cookie_and_leaves_the_address(make_client: MakeClient) -> None:
    client = make_client(token=TOKEN, client=REMOTE)
    answer = client.get(f"/tasks?page=2&token={TOKEN}", follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/tasks?page=2"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and TOKEN not in cookie
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    assert client.get("/tasks").status_code == 200  # the client now sends the cookie
    assert client.get("/tasks/a/b/1").status_code == 404


def test_a_wrong_query_token_or_cookie_is_refused(make_client: MakeClient) -> None:
    client = make_client(token=TOKEN, client=REMOTE)
    assert client.get("/tasks?token=guess-guess-guess-guess").status_code == 401
    client.cookies.set(COOKIE, "0" * 64)
    assert client.get("/tasks").status_code == 401
    client.cookies.set(COOKIE, TOKEN)  # the cookie is not the token itself
    assert client.get("/tasks").status_code == 401


def test_metrics_answers_a_query_token_at_once(make_client: MakeClient) -> None:
    client = make_client(token=TOKEN, client=REMOTE)
    answer = client.get(f"/metrics?token={TOKEN}", follow_redirects=False)
    assert answer.status_code == 200 and "agentium_redis_up" in answer.text
    assert COOKIE in answer.headers["set-cookie"]


def test_webhooks_and_health_are_not_behind_the_dashboard_rule(make_client: MakeClient) -> None:
    client = make_client(token=TOKEN, client=REMOTE)
    assert client.get("/healthz").status_code == 200
    assert client.get("/dashboard/static/dashboard.js").status_code == 200
