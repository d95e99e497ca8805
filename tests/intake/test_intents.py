"""What an issue event means with a repository's own trigger label (`trigger_label`)."""

from __future__ import annotations

from typing import Any

from tests.support import payload
from workers.intake.intents import Ignore, Rules, StartTask, decide
from workers.intake.payloads import Event

COMMANDS = frozenset({"stop", "retry", "status"})


class RepoLabel:
    """The repository's label as the App would read it from .github/agentium.yml."""

    def __init__(self, label: str) -> None:
        self.label, self.asked = label, 0

    def __call__(self, event: Event) -> str:
        self.asked += 1
        return self.label


def reopened(*labels: str) -> Event:
    data: dict[str, Any] = payload("issues", "reopened")
    data["issue"]["labels"] = [{**data["issue"]["labels"][0], "name": n} for n in labels]
    data["installation"] = {"id": 42, "node_id": "x"}
    return Event.model_validate(data)


def rules(repo_label: RepoLabel) -> Rules:
    return Rules("agentium", "agentium[bot]", COMMANDS, repo_label=repo_label)


def test_reopening_with_the_repository_label_restarts_the_task() -> None:
    repo = RepoLabel("bot-please")
    intent = decide("issues", reopened("bug", "bot-please"), rules(repo))
    assert isinstance(intent, StartTask) and intent.issue == 1
    assert repo.asked == 1


def test_reopening_with_other_labels_only_does_nothing() -> None:
    repo = RepoLabel("bot-please")
    assert isinstance(decide("issues", reopened("bug"), rules(repo)), Ignore)
    assert repo.asked == 1


def test_reopening_with_the_default_label_needs_no_question() -> None:
    repo = RepoLabel("bot-please")
    assert isinstance(decide("issues", reopened("agentium"), rules(repo)), StartTask)
    assert isinstance(decide("issues", reopened(), rules(repo)), Ignore)
    assert repo.asked == 0


def test_labelling_with_the_repository_label_starts_a_task() -> None:
    repo = RepoLabel("bot-please")
    data: dict[str, Any] = payload("issues", "labeled")
    data["label"]["name"] = "bot-please"
    assert isinstance(decide("issues", Event.model_validate(data), rules(repo)), StartTask)
    assert repo.asked == 1
