"""Stuck detection: the judge keeps asking for the same thing.

Judge feedback is normalised (paths, SHAs and numbers replaced, case and spacing folded);
when the last ``window`` consecutive judgments of a phase were all ITERATE and each is at
least ``similarity`` alike to the one before, the worker is stuck. The runner then moves
the worker to the escalation model, once per task, and lets the iteration limits act.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from workers.agents.settings import StuckSettings
from workers.agents.taskfiles import TaskFiles
from workers.controller import signals
from workers.controller.phases import JUDGE_VERDICTS, Phase, Verdict

log = logging.getLogger("agentium.agents.stuck")

_SHA_RE = re.compile(r"\b[0-9a-f]{7,40}\b")
_PATH_RE = re.compile(r"(?:[\w.-]+/)+[\w.-]+|\b[\w-]+\.[a-z]{1,5}\b")
_NUMBER_RE = re.compile(r"\d+(?:\.\d+)?")
_SPACE_RE = re.compile(r"\s+")


def normalise(text: str) -> str:
    text = _SHA_RE.sub("<sha>", text.lower())
    text = _PATH_RE.sub("<path>", text)
    text = _NUMBER_RE.sub("<n>", text)
    return _SPACE_RE.sub(" ", text).strip()


def similarity(a: str, b: str) -> float:
    return SequenceMatcher(None, normalise(a), normalise(b), autojunk=False).ratio()


def iterate_run(judgments: Sequence[tuple[int, str]]) -> list[str]:
    """The trailing run of consecutive ITERATE judgments (by iteration number)."""
    run: list[str] = []
    expected: int | None = None
    for iteration, text in reversed(judgments):
        verdict = signals.parse_verdict(text, JUDGE_VERDICTS)
        if verdict is None or verdict.verdict is not Verdict.ITERATE:
            break
        if expected is not None and iteration != expected:
            break
        run.append(text)
        expected = iteration - 1
    return run[::-1]


def is_stuck(judgments: Sequence[tuple[int, str]], settings: StuckSettings) -> bool:
    run = iterate_run(judgments)[-settings.window :]
    if len(run) < settings.window:
        return False
    return all(similarity(a, b) >= settings.similarity for a, b in itertools.pairwise(run))


def escalation_model(
    files: TaskFiles, phase: Phase, iteration: int, stuck: StuckSettings, model: str
) -> str | None:
    """The model a stuck worker moves to, or None. Escalates once per task; an escalated
    worker stays on the stronger model for the rest of that phase."""
    marker = files.escalation()
    if marker is not None:
        return model if marker.get("phase") == phase.value else None
    if not is_stuck(files.judge_texts(phase, before=iteration), stuck):
        return None
    files.mark_escalation(phase, iteration, model)
    log.warning(
        "worker stuck: escalating",
        extra={"phase": phase.value, "iteration": iteration, "model": model},
    )
    return model
