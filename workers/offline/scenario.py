"""Scenario files for the simulator: scripted agent outputs, validated with line numbers.

The format is documented in the README. Every error names the file and line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from workers.controller.errors import ConfigError, ControllerError
from workers.controller.limits import WorkflowConfig, parse_workflow_config
from workers.controller.outcomes import Command
from workers.controller.phases import AGENT_ROLES, Role

AGENT_KEYS = {"worker": Role.WORKER, "assessor": Role.ASSESSOR}
AGENT_KEYS |= {"reviewer": Role.REVIEWER, "judge": Role.JUDGE}
AGENT_KEYS |= {"doctor": Role.DOCTOR, "replanner": Role.REPLANNER}  # the recovery ladder
STEP_KEYS = (*AGENT_KEYS, "fail", "command", "budget", "review", "spend", "answer")
SPEND_KEYS: tuple[str, ...] = ("model", "input_tokens", "output_tokens", "cache_write_tokens")
SPEND_KEYS += ("cache_read_tokens", "cost_usd", "seconds")
TOP_KEYS = ("task", "pr_number", "settings", "steps", "expect")
EXPECT_KEYS: tuple[str, ...] = ("final_phase", "path", "controller_overrode", "pr", "iterations")
EXPECT_KEYS += ("review_rounds", "spend", "trace", "recovery")


class ScenarioError(ControllerError):
    """A malformed scenario; the message starts with ``file:line:``."""


@dataclass(frozen=True)
class ScriptStep:
    """One scripted step: an agent's output, an agent failure, a budget exceeded, a human
    command or review, or a model call's spend."""

    line: int
    kind: str  # a key of STEP_KEYS
    role: Role | None = None
    text: str | None = None
    commits: bool | None = None  # None: commits in IMPLEMENT and DOCS, none in PLAN
    error: str = ""
    command: Command | None = None
    user: str = ""
    reviews: tuple[str, ...] = ()  # review: the ids of the batched reviews
    model: str = ""  # spend: the model name
    usage: dict[str, float] = field(default_factory=dict)  # spend: the figures
    failing: tuple[str, ...] = ()  # reviewer: the failing test ids of the iteration's run
    infrastructure: bool = False  # fail: the model's service failed (the doctor at once)


@dataclass(frozen=True)
class Scenario:
    source: str
    task: str
    pr_number: int
    settings: WorkflowConfig
    steps: tuple[ScriptStep, ...]
    expect: dict[str, Any] = field(default_factory=dict)


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source
        self._constructor = SafeConstructor()

    def error(self, node: Node, message: str) -> ScenarioError:
        return ScenarioError(f"{self.source}:{node.start_mark.line + 1}: {message}")

    def value(self, node: Node) -> Any:
        return self._constructor.construct_object(node, deep=True)

    def mapping(self, node: Node, what: str, allowed: tuple[str, ...]) -> dict[str, Node]:
        if not isinstance(node, MappingNode):
            raise self.error(node, f"{what} must be a mapping")
        items: dict[str, Node] = {}
        for key_node, value_node in node.value:
            key = str(self.value(key_node))
            if key not in allowed:
                raise self.error(key_node, f"unknown key {key!r} in {what}; allowed: {allowed}")
            if key in items:
                raise self.error(key_node, f"duplicate key {key!r} in {what}")
            items[key] = value_node
        return items

    def typed(self, node: Node, kind: type | tuple[type, ...], what: str) -> Any:
        value = self.value(node)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self.error(node, f"{what}: expected {getattr(kind, '__name__', kind)}")
        return value

    def text(self, node: Node, what: str, *, optional: bool = False) -> str | None:
        if optional and isinstance(node, ScalarNode) and self.value(node) is None:
            return None
        if not isinstance(node, ScalarNode) or not isinstance(self.value(node), str):
            raise self.error(node, f"{what}: expected text" + (" or null" if optional else ""))
        text: str = self.value(node)
        return text


def _agent_step(reader: _Reader, key: str, node: Node) -> ScriptStep:
    line = node.start_mark.line + 1
    role = AGENT_KEYS[key]
    if key == "worker" and isinstance(node, MappingNode):
        fields = reader.mapping(node, "worker", ("text", "commits"))
        text = reader.text(fields["text"], "worker.text") if "text" in fields else ""
        commits = (
            reader.typed(fields["commits"], bool, "worker.commits") if "commits" in fields else None
        )
        return ScriptStep(line, key, role, text=text, commits=commits)
    if key == "reviewer" and isinstance(node, MappingNode):
        fields = reader.mapping(node, "reviewer", ("text", "failing"))
        text = reader.text(fields["text"], "reviewer.text") if "text" in fields else ""
        ids = (
            reader.typed(fields["failing"], list, "reviewer.failing") if "failing" in fields else []
        )
        return ScriptStep(line, key, role, text=text, failing=tuple(map(str, ids)))
    nullable = key in ("assessor", "judge", "doctor", "replanner")
    return ScriptStep(line, key, role, text=reader.text(node, key, optional=nullable))


def _fail_step(reader: _Reader, node: Node) -> ScriptStep:
    fields = reader.mapping(node, "fail", ("role", "error", "infrastructure"))
    if "role" not in fields:
        raise reader.error(node, "fail: needs a role (worker, assessor, reviewer, judge)")
    name = reader.text(fields["role"], "fail.role") or ""
    if name not in AGENT_KEYS:
        raise reader.error(fields["role"], f"fail.role: {name!r} is not an agent role")
    error = reader.text(fields["error"], "fail.error") if "error" in fields else "error"
    infra = fields.get("infrastructure")
    infrastructure = reader.typed(infra, bool, "fail.infrastructure") if infra else False
    role = AGENT_KEYS[name]
    assert role in AGENT_ROLES
    line = node.start_mark.line + 1
    return ScriptStep(line, "fail", role, error=error or "error", infrastructure=infrastructure)


def _answer_step(reader: _Reader, node: Node) -> ScriptStep:
    """A person's reply on the issue while the task waits for an answer to its question."""
    line = node.start_mark.line + 1
    if not isinstance(node, MappingNode):
        return ScriptStep(line, "answer", text=reader.text(node, "answer"), user="maintainer")
    fields = reader.mapping(node, "answer", ("text", "user"))
    if "text" not in fields:
        raise reader.error(node, "answer: needs a text")
    user = reader.text(fields["user"], "answer.user") if "user" in fields else "maintainer"
    return ScriptStep(
        line, "answer", text=reader.text(fields["text"], "answer.text"), user=user or ""
    )


def _command_step(reader: _Reader, node: Node) -> ScriptStep:
    user = ""
    target = node
    if isinstance(node, MappingNode):
        fields = reader.mapping(node, "command", ("command", "user"))
        if "command" not in fields:
            raise reader.error(node, "command: needs a command (stop, retry, status)")
        target = fields["command"]
        if "user" in fields:
            user = reader.text(fields["user"], "command.user") or ""
    name = reader.text(target, "command") or ""
    if name not in {c.value for c in Command}:
        raise reader.error(target, f"command: {name!r} is not one of stop, retry, status")
    return ScriptStep(node.start_mark.line + 1, "command", command=Command(name), user=user)


def _budget_step(reader: _Reader, node: Node) -> ScriptStep:
    fields = reader.mapping(node, "budget", ("role", "detail"))
    name = reader.text(fields["role"], "budget.role") if "role" in fields else "controller"
    roles = {**AGENT_KEYS, "controller": Role.CONTROLLER}
    if name not in roles:
        raise reader.error(fields["role"], f"budget.role: {name!r} is not an agent role")
    detail = reader.text(fields["detail"], "budget.detail") if "detail" in fields else None
    line = node.start_mark.line + 1
    return ScriptStep(line, "budget", roles[name or ""], error=detail or "budget exceeded")


def _review_step(reader: _Reader, node: Node) -> ScriptStep:
    line = node.start_mark.line + 1
    if not isinstance(node, MappingNode):
        return ScriptStep(line, "review", text=reader.text(node, "review"), user="reviewer")
    fields = reader.mapping(node, "review", ("text", "user", "reviews"))
    if "text" not in fields:
        raise reader.error(node, "review: needs a text")
    user = reader.text(fields["user"], "review.user") if "user" in fields else "reviewer"
    ids = reader.typed(fields["reviews"], list, "review.reviews") if "reviews" in fields else []
    text = reader.text(fields["text"], "review.text")
    return ScriptStep(line, "review", text=text, user=user or "", reviews=tuple(map(str, ids)))


def _spend_step(reader: _Reader, node: Node) -> ScriptStep:
    fields = reader.mapping(node, "spend", SPEND_KEYS)
    model = reader.text(fields.pop("model"), "spend.model") if "model" in fields else ""
    usage: dict[str, float] = {}
    for key, value in fields.items():
        number = reader.typed(value, (int, float), f"spend.{key}")
        if isinstance(number, bool) or number < 0:
            raise reader.error(value, f"spend.{key}: expected a number >= 0")
        usage[key] = number
    return ScriptStep(node.start_mark.line + 1, "spend", model=model or "", usage=usage)


def _step(reader: _Reader, node: Node) -> ScriptStep:
    fields = reader.mapping(node, "a step", STEP_KEYS)
    if len(fields) != 1:
        raise reader.error(node, f"a step has exactly one of {STEP_KEYS}")
    ((key, value),) = fields.items()
    builders: dict[str, Callable[[], ScriptStep]] = {
        "fail": lambda: _fail_step(reader, value),
        "command": lambda: _command_step(reader, value),
        "budget": lambda: _budget_step(reader, value),
        "review": lambda: _review_step(reader, value),
        "spend": lambda: _spend_step(reader, value),
        "answer": lambda: _answer_step(reader, value),
    }
    return builders.get(key, lambda: _agent_step(reader, key, value))()


def _settings(reader: _Reader, node: Node | None) -> WorkflowConfig:
    if node is None:
        return WorkflowConfig()
    try:
        return parse_workflow_config(reader.value(node), "settings")
    except ConfigError as error:
        raise reader.error(node, str(error)) from None


def _expect(reader: _Reader, node: Node | None) -> dict[str, Any]:
    if node is None:
        return {}
    fields = reader.mapping(node, "expect", EXPECT_KEYS)
    return {key: reader.value(value) for key, value in fields.items()}


def parse_scenario(text: str, source: str = "<scenario>") -> Scenario:
    reader = _Reader(source)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else 0
        raise ScenarioError(f"{source}:{line}: not valid YAML: {error.problem}") from None
    if root is None:
        raise ScenarioError(f"{source}:1: the scenario is empty")
    fields = reader.mapping(root, "the scenario", TOP_KEYS)
    if "steps" not in fields or not isinstance(fields["steps"], SequenceNode):
        raise reader.error(fields.get("steps", root), "steps: expected a list of steps")
    task = reader.text(fields["task"], "task") if "task" in fields else None
    pr_number = reader.typed(fields["pr_number"], int, "pr_number") if "pr_number" in fields else 1
    return Scenario(
        source=source,
        task=task or Path(source).stem,
        pr_number=pr_number,
        settings=_settings(reader, fields.get("settings")),
        steps=tuple(_step(reader, node) for node in fields["steps"].value),
        expect=_expect(reader, fields.get("expect")),
    )


def load_scenario(path: str | Path) -> Scenario:
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise ScenarioError(f"{file}: cannot read the scenario: {error.strerror}") from None
    return parse_scenario(text, str(file))
