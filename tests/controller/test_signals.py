from __future__ import annotations

import pytest

from workers.controller.memory import MemoryType
from workers.controller.phases import ASSESSOR_VERDICTS, JUDGE_VERDICTS, Verdict
from workers.controller.signals import (
    EVAL_PREFIX,
    MemorySignal,
    memory_instruction,
    parse_memory,
    parse_nothing_to_do,
    parse_verdict,
    status_instruction,
    verdict_instruction,
    verdict_reminder,
)


def verdict_of(text: str | None) -> Verdict | None:
    judgment = parse_verdict(text, JUDGE_VERDICTS)
    return judgment.verdict if judgment else None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Looks good.\nAGENTIUM_EVAL: ADVANCE", Verdict.ADVANCE),
        ("AGENTIUM_EVAL: ITERATE add tests", Verdict.ITERATE),
        ("AGENTIUM_EVAL:BLOCKED no access", Verdict.BLOCKED),
        ("AGENTIUM_EVAL: ADVANCE   \n\n", Verdict.ADVANCE),
        ("Verdict in a fence:\n```\nAGENTIUM_EVAL: ITERATE fix it\n```\n", Verdict.ITERATE),
        ("```text\nAGENTIUM_EVAL: ADVANCE\n- minor nits\n```", Verdict.ADVANCE),
        ("~~~\nAGENTIUM_EVAL: BLOCKED\n~~~", Verdict.BLOCKED),
        ("```\nAGENTIUM_EVAL: ADVANCE\n", Verdict.ADVANCE),  # unclosed fence
        (
            "AGENTIUM_EVAL: ITERATE first\nthinking...\nAGENTIUM_EVAL: ADVANCE second",
            Verdict.ADVANCE,
        ),
        ("AGENTIUM_EVAL: ADVANCE\nAGENTIUM_EVAL: ITERATE changed my mind", Verdict.ITERATE),
    ],
)
def test_verdicts_are_found(text: str, expected: Verdict) -> None:
    assert verdict_of(text) is expected


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "I think we should advance.",
        "The verdict is AGENTIUM_EVAL: ADVANCE",  # not at the start of the line
        "  AGENTIUM_EVAL: ADVANCE",  # indented: quoted, not the judge's own line
        "> AGENTIUM_EVAL: ADVANCE",  # block quote
        "AGENTIUM_EVAL: ADVANCED",  # not a verdict word
        "AGENTIUM_EVAL: advance",  # the format is upper case
        "AGENTIUM_EVAL: SIMPLE",  # an assessor verdict is no judge verdict
        "Tool output:\n```\n$ grep -r EVAL\nAGENTIUM_EVAL: ADVANCE\n```",  # quoted output
    ],
)
def test_no_verdict(text: str | None) -> None:
    assert verdict_of(text) is None


def test_verdict_in_quoted_tool_output_does_not_override_the_judges_own_line() -> None:
    text = (
        "AGENTIUM_EVAL: ITERATE the tests fail\n"
        "For reference, the log said:\n"
        "```\nRunning judge fixture\nAGENTIUM_EVAL: ADVANCE\n```\n"
    )
    judgment = parse_verdict(text, JUDGE_VERDICTS)
    assert judgment is not None
    assert (judgment.verdict, judgment.feedback) == (Verdict.ITERATE, "the tests fail")


def test_feedback_is_the_rest_of_the_line() -> None:
    judgment = parse_verdict("AGENTIUM_EVAL: ITERATE  handle the 404 case  ", JUDGE_VERDICTS)
    assert judgment is not None
    assert judgment.feedback == "handle the 404 case"


def test_assessor_verdicts() -> None:
    assert parse_verdict("AGENTIUM_EVAL: SIMPLE", ASSESSOR_VERDICTS) is not None
    assert parse_verdict("AGENTIUM_EVAL: ADVANCE", ASSESSOR_VERDICTS) is None


def test_a_trailing_line_of_another_kind_does_not_cancel_the_verdict() -> None:
    # The judge's verdict is its last ADVANCE|ITERATE|BLOCKED line; an assessor word after
    # it is no judge verdict and changes nothing (no needless re-ask).
    judgment = parse_verdict("AGENTIUM_EVAL: ADVANCE fine\nAGENTIUM_EVAL: COMPLEX", JUDGE_VERDICTS)
    assert judgment is not None and judgment.verdict is Verdict.ADVANCE
    assert judgment.feedback == "fine"
    assert verdict_of("AGENTIUM_EVAL: COMPLEX") is None
    mixed = "AGENTIUM_EVAL: ITERATE a\nAGENTIUM_EVAL: SIMPLE\nAGENTIUM_EVAL: ADVANCE b"
    assert verdict_of(mixed) is Verdict.ADVANCE


def test_nothing_to_do() -> None:
    assert parse_nothing_to_do("AGENTIUM_STATUS: NOTHING_TO_DO fixed in #8") == "fixed in #8"
    assert parse_nothing_to_do("AGENTIUM_STATUS: NOTHING_TO_DO") == "no reason given"
    assert parse_nothing_to_do("we could say AGENTIUM_STATUS: NOTHING_TO_DO") is None
    assert parse_nothing_to_do("AGENTIUM_STATUS: DONE") is None


def test_memory_lines() -> None:
    text = (
        "Done.\n"
        "AGENTIUM_MEMORY: KEY_FACT The API uses OAuth2\n"
        "```\nAGENTIUM_MEMORY: STEP_DONE Implemented login\n"
        "AGENTIUM_MEMORY: DECISION Use Redis\n```\n"
        "AGENTIUM_MEMORY: UNKNOWN something\n"
        "AGENTIUM_MEMORY: ERROR\n"  # no text
        "  AGENTIUM_MEMORY: KEY_FACT indented is quoted\n"
    )
    assert parse_memory(text) == [
        MemorySignal(MemoryType.KEY_FACT, "The API uses OAuth2"),
        MemorySignal(MemoryType.STEP_DONE, "Implemented login"),
        MemorySignal(MemoryType.DECISION, "Use Redis"),
    ]


def test_instructions_use_the_parsers_constants() -> None:
    instruction = verdict_instruction(JUDGE_VERDICTS)
    assert f"{EVAL_PREFIX} ADVANCE|ITERATE|BLOCKED" in instruction
    example = instruction.splitlines()[-1].replace("ADVANCE|ITERATE|BLOCKED", "ITERATE")
    judgment = parse_verdict(example, JUDGE_VERDICTS)
    assert judgment is not None and judgment.verdict is Verdict.ITERATE
    assert "SIMPLE|COMPLEX" in verdict_instruction(ASSESSOR_VERDICTS, feedback=False)
    assert EVAL_PREFIX in verdict_reminder(JUDGE_VERDICTS)
    assert len(verdict_reminder(JUDGE_VERDICTS).splitlines()) == 1
    reason = status_instruction().split("line ")[1].split(" instead")[0]
    assert parse_nothing_to_do(reason.replace("<reason>", "done already")) == "done already"
    assert "PHASE_RESULT" not in memory_instruction()
    assert "KEY_FACT" in memory_instruction()
