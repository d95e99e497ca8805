"""Where setup sends the manifest, and what it fills in."""

from __future__ import annotations

import pytest

from bot.setup import in_setup_mode
from bot.setup_manifest import fill_manifest, load_manifest, unreachable_from_github, web_url
from config.settings import load_settings


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "https://github.com"),
        ({"GITHUB_API_URL": "https://ghe.example.com/api/v3"}, "https://ghe.example.com"),
        ({"GITHUB_WEB_URL": "http://127.0.0.1:9/"}, "http://127.0.0.1:9"),
    ],
)
def test_web_url(env: dict[str, str], expected: str) -> None:
    assert web_url(load_settings(env)) == expected


def test_fill_keeps_permissions_and_events() -> None:
    manifest = load_manifest()
    filled = fill_manifest(manifest, "https://x.example/")
    assert filled["default_permissions"] == manifest["default_permissions"]
    assert filled["hook_attributes"] == {
        "url": "https://x.example/api/github/webhooks",
        "active": True,
    }
    assert manifest["redirect_url"] != filled["redirect_url"]  # the loaded one is not changed


@pytest.mark.parametrize(
    ("url", "unreachable"),
    [
        ("http://127.0.0.1:3000", True),
        ("http://localhost:3000", True),
        ("http://192.168.1.5:3000", True),
        ("https://bot.example.org", False),
    ],
)
def test_unreachable_from_github(url: str, unreachable: bool) -> None:
    assert unreachable_from_github(url) is unreachable


def test_setup_mode_only_without_app_id_and_webhook_secret() -> None:
    assert in_setup_mode(load_settings({}))
    assert not in_setup_mode(load_settings({"WEBHOOK_SECRET": "s"}))
    assert not in_setup_mode(load_settings({"APP_ID": "3"}))
