"""The work a worker does once before it forks its work-horses (workers/warmup.py): every
prompt template compiled, and one Messages API call through the adapter answered in
memory, in the shape the real API answers."""

from __future__ import annotations

import json
import logging
import random
import socket
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jinja2
import pytest

from workers.agents import anthropic_warmup
from workers.agents.anthropic_warmup import warm_up_anthropic
from workers.agents.llm import Text, ToolCall
from workers.agents.prompts import DEFAULT_DIRECTORY, Prompts
from workers.agents.retry import ModelRetryPolicy
from workers.defaults import load_default_agent_settings, load_default_prices
from workers.warmup import warm_up

CORPUS = Path(__file__).parent.parent / "corpus" / "anthropic"


def no_network(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("the warm-up reached for the network")


def test_the_sdk_call_goes_through_the_adapter_and_stays_in_the_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    policy = ModelRetryPolicy(load_default_agent_settings().retry, random.random)
    response = warm_up_anthropic(load_default_prices(), policy)
    assert response.message.content == (
        Text(text="warm"),
        ToolCall(id="toolu_warm_up", name="read_file", input={"path": "a"}),
    )
    assert response.attempts == 1 and response.usage.input_tokens == 1


def test_the_in_memory_reply_has_the_shape_of_a_real_one() -> None:
    real: dict[str, Any] = json.loads(
        (CORPUS / "messages.create.text_plus_tool_use.200.json").read_text()
    )["body"]
    ours = anthropic_warmup.REPLY
    assert set(ours) == set(real)
    assert set(ours["usage"]) <= set(real["usage"])  # type: ignore[arg-type]
    assert set(ours["usage"]["cache_creation"]) == set(real["usage"]["cache_creation"])  # type: ignore[index]
    kinds = [block["type"] for block in ours["content"]]  # type: ignore[attr-defined]
    assert kinds == [block["type"] for block in real["content"]]


def test_every_prompt_template_compiles_once_and_is_not_compiled_again() -> None:
    prompts = Prompts()
    names = prompts.compile_all()
    assert names == sorted(p.name for p in DEFAULT_DIRECTORY.glob("*.md"))

    def compile_again(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a template was compiled after the warm-up")

    prompts.environment.compile = compile_again  # type: ignore[method-assign,assignment]
    for name in names:
        prompts.environment.get_template(name)


def test_a_broken_template_is_found_when_the_worker_starts(tmp_path: Path) -> None:
    (tmp_path / "fine.md").write_text("Hello {{ name }}\n")
    (tmp_path / "broken.md").write_text("{% if %}never closed\n")
    with pytest.raises(jinja2.TemplateSyntaxError):
        Prompts(tmp_path).compile_all()


def test_the_worker_warm_up_logs_what_it_did(caplog: pytest.LogCaptureFixture) -> None:
    runtime: Any = SimpleNamespace(runner=SimpleNamespace(deps=SimpleNamespace(prompts=Prompts())))
    with caplog.at_level(logging.INFO, logger="agentium.worker"):
        warm_up(runtime)
    [record] = [r for r in caplog.records if r.getMessage() == "warmed up"]
    assert record.templates == len(list(DEFAULT_DIRECTORY.glob("*.md")))  # type: ignore[attr-defined]
