"""The first step's work beside its way to the first call (workers/engine/opening.py):
the repository map is built beside and reaches the prompt's files; the start's effects
and the baseline wait for the first model request, and never past the step's end."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from workers.agents import repomap
from workers.agents.taskfiles import TaskFiles
from workers.engine import opening as opening_module
from workers.engine.opening import Opening

Driver = Any  # a stand-in: Opening reads only the attributes set below


def driver(tmp_path: Path, checkout: Path | None = None) -> Driver:
    context = SimpleNamespace(repo_map_chars=4000)
    effects = SimpleNamespace(defer=None, marks=SimpleNamespace(set=lambda *a: None))
    return SimpleNamespace(
        session=SimpleNamespace(
            effects=effects,
            state_dir=tmp_path / "state",
            workspace=SimpleNamespace(path=checkout or tmp_path / "checkout"),
        ),
        config=SimpleNamespace(agents=SimpleNamespace(context=context)),
        record=SimpleNamespace(key="octo/repo#1", trigger_delivery="d-1"),
        watch=SimpleNamespace(beside={}),
    )


def eventually(test: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if test():
            return True
        time.sleep(0.01)
    return test()


def deferred(tmp_path: Path, *effects: str) -> tuple[Opening, list[str]]:
    """An opening whose start's effects are deferred, and the effects done so far."""
    d = driver(tmp_path)
    opening = Opening(d)
    opening.defer_effects()
    done: list[str] = []
    for name in effects:
        d.session.effects.defer(lambda name=name: done.append(name))
    return opening, done


def test_the_map_built_beside_is_the_one_the_prompt_reads(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "pkg").mkdir(parents=True)
    (checkout / "pkg" / "core.py").write_text("class Parser:\n    def parse(self): ...\n")
    (checkout / "README.md").write_text("# demo\n")
    opening = Opening(driver(tmp_path, checkout))
    opening.map_repository()
    opening.map_ready()
    stored = (tmp_path / "state" / "repo-map.txt").read_text()
    assert stored == repomap.build(checkout, 4000)
    assert "class Parser: parse" in stored
    (checkout / "pkg" / "later.py").write_text("def later(): ...\n")  # after the start
    assert TaskFiles(tmp_path / "state").repo_map(checkout, 4000) == stored
    opening.close()


def test_a_failed_map_is_logged_and_left_to_the_prompt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "state").write_text("not a directory")  # the map cannot be kept
    opening = Opening(driver(tmp_path))
    opening.map_repository()
    opening.map_ready()  # does not raise
    assert "the repository map failed" in caplog.text
    opening.close()


def test_the_start_effects_wait_for_the_first_model_request(tmp_path: Path) -> None:
    opening, done = deferred(tmp_path, "label", "status")
    time.sleep(0.3)
    assert done == []  # the first call's way there has the CPU to itself
    opening.calling()
    assert eventually(lambda: done == ["label", "status"])
    opening.close()


def test_the_baseline_waits_for_the_first_model_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken: list[float] = []
    monkeypatch.setattr(opening_module, "_baseline_or_none", lambda _d: taken.append(1.0))
    opening = Opening(driver(tmp_path))
    opening.take_baseline()
    time.sleep(0.3)
    assert taken == []
    opening.calling()
    assert eventually(lambda: taken == [1.0])
    opening.close()


def test_a_step_without_a_model_call_does_not_wait_for_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(opening_module, "CALL_WAIT_S", 60.0)
    opening, done = deferred(tmp_path, "label")
    started = time.monotonic()
    opening.close()  # e.g. the step failed before its call
    assert done == ["label"]
    assert time.monotonic() - started < 30


def test_without_a_call_the_wait_ends_after_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(opening_module, "CALL_WAIT_S", 0.2)
    opening, done = deferred(tmp_path, "label")
    assert eventually(lambda: done == ["label"], timeout=3)
    opening.close()
