"""app.yml asks GitHub for exactly the events the receiver routes, and the permissions it needs."""

from pathlib import Path

import yaml

from bot.events import EVENT_ACTIONS

MANIFEST = yaml.safe_load((Path(__file__).parent.parent / "app.yml").read_text())

# GitHub sends these to every App without subscribing; they are not manifest events.
ALWAYS_SENT = {"installation", "installation_repositories"}


def test_events_match_the_receiver() -> None:
    assert set(MANIFEST["default_events"]) == set(EVENT_ACTIONS) - ALWAYS_SENT


def test_permissions() -> None:
    assert MANIFEST["default_permissions"] == {
        "checks": "write",
        "contents": "write",
        "issues": "write",
        "metadata": "read",
        "pull_requests": "write",
    }
    assert MANIFEST["public"] is False
    assert MANIFEST["hook_attributes"]["url"].endswith("/api/github/webhooks")
