"""Parse the agents' signal lines; build the prompt text that asks for them.

One constant and one compiled regex per signal. The parser reads only the text handed to it
(the agent's own final answer, never tool output) and accepts a signal only on a line of its
own. A fenced block (```) counts only when its first non-blank line is itself a signal line,
so a fence wrapped around the signal is tolerated while quoted command output is not. Of
several verdict lines, the last one wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from workers.controller.memory import MemoryType
from workers.controller.phases import Verdict
from workers.controller.recovery import DoctorAction

EVAL_PREFIX = "AGENTIUM_EVAL:"
STATUS_PREFIX = "AGENTIUM_STATUS:"
MEMORY_PREFIX = "AGENTIUM_MEMORY:"
DOCTOR_PREFIX = "AGENTIUM_DOCTOR:"
SCOPE_CUT_PREFIX = "AGENTIUM_SCOPE_CUT:"
NOTHING_TO_DO = "NOTHING_TO_DO"

_VERDICTS = "|".join(v.value for v in Verdict)
_MEMORY_TYPES = "|".join(t.value for t in MemoryType)

EVAL_RE = re.compile(rf"^{EVAL_PREFIX}[ \t]*(?P<verdict>{_VERDICTS})\b[ \t]*(?P<text>.*?)[ \t]*$")
STATUS_RE = re.compile(
    rf"^{STATUS_PREFIX}[ \t]*(?P<status>{NOTHING_TO_DO})\b[ \t]*(?P<text>.*?)[ \t]*$"
)
MEMORY_RE = re.compile(
    rf"^{MEMORY_PREFIX}[ \t]*(?P<type>{_MEMORY_TYPES})[ \t]+(?P<text>\S.*?)[ \t]*$"
)

_DOCTOR_ACTIONS = "|".join(a.value for a in DoctorAction)
DOCTOR_RE = re.compile(
    rf"^{DOCTOR_PREFIX}[ \t]*(?P<action>{_DOCTOR_ACTIONS})\b[ \t]*(?P<text>.*?)[ \t]*$"
)
SCOPE_CUT_RE = re.compile(rf"^{SCOPE_CUT_PREFIX}[ \t]*(?P<text>\S.*?)[ \t]*$")

_SIGNAL_RES = (EVAL_RE, STATUS_RE, MEMORY_RE, DOCTOR_RE, SCOPE_CUT_RE)
_FENCE_RE = re.compile(r"^[ \t]*(```|~~~)")


@dataclass(frozen=True)
class Judgment:
    verdict: Verdict
    feedback: str


@dataclass(frozen=True)
class DoctorAdvice:
    action: DoctorAction
    text: str


@dataclass(frozen=True)
class MemorySignal:
    type: MemoryType
    text: str


def _is_signal(line: str) -> bool:
    return any(pattern.match(line) for pattern in _SIGNAL_RES)


def _accept_block(block: list[str]) -> bool:
    first = next((line for line in block if line.strip()), "")
    return _is_signal(first)


def signal_lines(text: str) -> Iterator[str]:
    """The lines of ``text`` that may carry a signal, in order (see the module docstring)."""
    block: list[str] | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if _FENCE_RE.match(line):
            if block is None:
                block = []
                continue
            if _accept_block(block):
                yield from block
            block = None
            continue
        if block is None:
            yield line
        else:
            block.append(line)
    if block is not None and _accept_block(block):
        yield from block


def parse_verdict(text: str | None, allowed: Sequence[Verdict]) -> Judgment | None:
    """The last ``AGENTIUM_EVAL:`` line with an ``allowed`` verdict; None when there is none.

    Verdict lines of another kind (an assessor's SIMPLE after a judge's ADVANCE) are not
    this agent's verdict and do not cancel the one before them.
    """
    if not text:
        return None
    found: Judgment | None = None
    for line in signal_lines(text):
        match = EVAL_RE.match(line)
        if match and Verdict(match["verdict"]) in allowed:
            found = Judgment(Verdict(match["verdict"]), match["text"])
    return found


def parse_nothing_to_do(text: str) -> str | None:
    """The reason of an ``AGENTIUM_STATUS: NOTHING_TO_DO reason`` line, or None."""
    reason: str | None = None
    for line in signal_lines(text):
        match = STATUS_RE.match(line)
        if match:
            reason = match["text"] or "no reason given"
    return reason


def parse_memory(text: str) -> list[MemorySignal]:
    """Every ``AGENTIUM_MEMORY: TYPE text`` line, in order."""
    found: list[MemorySignal] = []
    for line in signal_lines(text):
        match = MEMORY_RE.match(line)
        if match:
            found.append(MemorySignal(MemoryType(match["type"]), match["text"]))
    return found


def parse_doctor(text: str | None) -> DoctorAdvice | None:
    """The doctor's last ``AGENTIUM_DOCTOR: <action> <text>`` line, or None."""
    found: DoctorAdvice | None = None
    for line in signal_lines(text or ""):
        match = DOCTOR_RE.match(line)
        if match:
            found = DoctorAdvice(DoctorAction(match["action"]), match["text"])
    return found


def parse_scope_cuts(text: str) -> list[str]:
    """What a worker told to reduce the scope says it left out, one item per line."""
    return [m["text"] for line in signal_lines(text) if (m := SCOPE_CUT_RE.match(line))]


def verdict_instruction(allowed: Sequence[Verdict], *, feedback: bool = True) -> str:
    """The paragraph a prompt uses to ask for a verdict, built from the parser's constants."""
    choices = "|".join(v.value for v in allowed)
    tail = " <one-line summary of your decision>" if feedback else ""
    return (
        "End your answer with exactly one line of its own, outside any code block:\n"
        f"{EVAL_PREFIX} {choices}{tail}"
    )


def verdict_reminder(allowed: Sequence[Verdict]) -> str:
    """The one-line reminder sent when a judge answered without a verdict line."""
    choices = "|".join(v.value for v in allowed)
    return f"Your answer had no verdict. Reply with one line: {EVAL_PREFIX} {choices} <reason>"


def status_instruction() -> str:
    return (
        "If the issue needs no change at all, end with the line "
        f"{STATUS_PREFIX} {NOTHING_TO_DO} <reason> instead of a plan."
    )


def memory_instruction() -> str:
    types = ", ".join(t.value for t in MemoryType if t is not MemoryType.PHASE_RESULT)
    return (
        "To remember something for later iterations, write lines of the form\n"
        f"{MEMORY_PREFIX} <TYPE> <text>\nwith TYPE one of {types}. "
        "STEP_DONE with the same text resolves a STEP_PENDING."
    )


def doctor_instruction() -> str:
    actions = "|".join(a.value for a in DoctorAction)
    return (
        "End your answer with exactly one line of its own, outside any code block:\n"
        f"{DOCTOR_PREFIX} {actions} <the fix, the new approach, or the reason>"
    )


def scope_cut_instruction() -> str:
    return (
        "For every part of the issue you leave out, write one line of its own:\n"
        f"{SCOPE_CUT_PREFIX} <what is left out and why>"
    )
