"""The steps of a scenario file (the simulator's scripted agent outputs, human comments and
spend), each read into a :class:`ScriptStep` with errors naming the file and line.

The format is documented in the README ("Scenario format"); :mod:`workers.offline.scenario`
reads the file around the steps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode

from workers.controller.errors import ControllerError
from workers.controller.outcomes import Command
from workers.controller.phases import AGENT_ROLES, Role
from workers.controller.testrun import TestRun

AGENT_KEYS = {"worker": Role.WORKER, "assessor": Role.ASSESSOR}
AGENT_KEYS |= {"reviewer": Role.REVIEWER, "judge": Role.JUDGE}
AGENT_KEYS |= {"doctor": Role.DOCTOR, "replanner": Role.REPLANNER}  # the recovery ladder
STEP_KEYS = (*AGENT_KEYS, "subtask", "fail", "command", "budget", "review", "spend", "answer")
SUBTASK_KEYS = ("id", "text", "changes", "conflict", "fail")
SPEND_KEYS: tuple[str, ...] = ("model", "input_tokens", "output_tokens", "cache_write_tokens")
SPEND_KEYS += ("cache_read_tokens", "cost_usd", "seconds")
TEST_KEYS = ("command", "exit_code", "passed", "failed", "errors", "skipped", "failing")
TEST_COMMAND = "make test"  # a test run's command when the scenario names none


class ScenarioError(ControllerError):
    """A malformed scenario; the message starts with ``file:line:``."""


@dataclass(frozen=True)
class ScriptStep:
    """One scripted step: an agent's output, an agent failure, a budget exceeded, a human
    command, review or answer, or a model call's spend."""

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
    tests: TestRun | None = None  # reviewer: the test command's run on the change
    subtask: str = ""  # subtask: the plan task's id
    conflict: str = ""  # subtask: its changes do not apply at the join (the conflict)
    infrastructure: bool = False  # fail: the model's service failed (the doctor at once)


class Reader:
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


def read_test_run(reader: Reader, node: Node, what: str) -> TestRun:
    """A run of the test command: its figures; ``exit_code`` defaults to 1 when something
    failed, else 0 (``null``: it did not finish); ``command: ""`` means there is none."""
    fields = reader.mapping(node, what, TEST_KEYS)
    values: dict[str, Any] = {"command": TEST_COMMAND}
    for key, value in fields.items():
        if key == "command":
            values[key] = reader.text(value, f"{what}.command")
        elif key == "failing":
            values[key] = tuple(map(str, reader.typed(value, list, f"{what}.failing")))
        elif key == "exit_code" and reader.value(value) is None:
            values[key] = None
        else:
            values[key] = reader.typed(value, int, f"{what}.{key}")
            if values[key] < 0 and key != "exit_code":
                raise reader.error(value, f"{what}.{key}: expected a number >= 0")
    if "exit_code" not in values:
        failed = values.get("failing") or values.get("failed") or values.get("errors")
        values["exit_code"] = 1 if failed else 0
    return TestRun.model_validate(values)


def _reviewer_step(reader: Reader, node: Node) -> ScriptStep:
    """``reviewer: text`` or ``{text, tests: {...}}``; ``failing: [ids]`` is short for
    ``tests: {failing: [ids]}`` (a run that failed naming those tests)."""
    line = node.start_mark.line + 1
    if not isinstance(node, MappingNode):
        return ScriptStep(line, "reviewer", Role.REVIEWER, text=reader.text(node, "reviewer"))
    fields = reader.mapping(node, "reviewer", ("text", "tests", "failing"))
    text = reader.text(fields["text"], "reviewer.text") if "text" in fields else ""
    tests = read_test_run(reader, fields["tests"], "reviewer.tests") if "tests" in fields else None
    if "failing" in fields:
        if tests is not None:
            raise reader.error(fields["failing"], "reviewer: tests or failing, not both")
        ids = tuple(map(str, reader.typed(fields["failing"], list, "reviewer.failing")))
        tests = TestRun(command=TEST_COMMAND, exit_code=1 if ids else 0, failing=ids)
    return ScriptStep(line, "reviewer", Role.REVIEWER, text=text, tests=tests)


def _agent_step(reader: Reader, key: str, node: Node) -> ScriptStep:
    line = node.start_mark.line + 1
    role = AGENT_KEYS[key]
    if key == "reviewer":
        return _reviewer_step(reader, node)
    if key == "worker" and isinstance(node, MappingNode):
        fields = reader.mapping(node, "worker", ("text", "commits"))
        text = reader.text(fields["text"], "worker.text") if "text" in fields else ""
        commits = (
            reader.typed(fields["commits"], bool, "worker.commits") if "commits" in fields else None
        )
        return ScriptStep(line, key, role, text=text, commits=commits)
    nullable = key in ("assessor", "judge", "doctor", "replanner")
    return ScriptStep(line, key, role, text=reader.text(node, key, optional=nullable))


def _subtask_step(reader: Reader, node: Node) -> ScriptStep:
    """``subtask: {id: 2a, text: ..., changes: false, conflict: ..., fail: ...}``."""
    fields = reader.mapping(node, "subtask", SUBTASK_KEYS)
    if "id" not in fields:
        raise reader.error(node, "subtask: needs the id of the plan's task it answers")
    subtask_id = str(reader.value(fields["id"])).lower()
    text = reader.text(fields["text"], "subtask.text") if "text" in fields else ""
    changes = (
        reader.typed(fields["changes"], bool, "subtask.changes") if "changes" in fields else None
    )
    conflict = reader.text(fields["conflict"], "subtask.conflict") if "conflict" in fields else ""
    error = reader.text(fields["fail"], "subtask.fail") if "fail" in fields else ""
    return ScriptStep(
        node.start_mark.line + 1,
        "subtask",
        Role.WORKER,
        text=text,
        commits=changes,
        error=error or "",
        subtask=subtask_id,
        conflict=conflict or "",
    )


def _fail_step(reader: Reader, node: Node) -> ScriptStep:
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


def _answer_step(reader: Reader, node: Node) -> ScriptStep:
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


def _command_step(reader: Reader, node: Node) -> ScriptStep:
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


def _budget_step(reader: Reader, node: Node) -> ScriptStep:
    fields = reader.mapping(node, "budget", ("role", "detail"))
    name = reader.text(fields["role"], "budget.role") if "role" in fields else "controller"
    roles = {**AGENT_KEYS, "controller": Role.CONTROLLER}
    if name not in roles:
        raise reader.error(fields["role"], f"budget.role: {name!r} is not an agent role")
    detail = reader.text(fields["detail"], "budget.detail") if "detail" in fields else None
    line = node.start_mark.line + 1
    return ScriptStep(line, "budget", roles[name or ""], error=detail or "budget exceeded")


def _review_step(reader: Reader, node: Node) -> ScriptStep:
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


def _spend_step(reader: Reader, node: Node) -> ScriptStep:
    fields = reader.mapping(node, "spend", SPEND_KEYS)
    model = reader.text(fields.pop("model"), "spend.model") if "model" in fields else ""
    usage: dict[str, float] = {}
    for key, value in fields.items():
        number = reader.typed(value, (int, float), f"spend.{key}")
        if isinstance(number, bool) or number < 0:
            raise reader.error(value, f"spend.{key}: expected a number >= 0")
        usage[key] = number
    return ScriptStep(node.start_mark.line + 1, "spend", model=model or "", usage=usage)


def parse_step(reader: Reader, node: Node) -> ScriptStep:
    fields = reader.mapping(node, "a step", STEP_KEYS)
    if len(fields) != 1:
        raise reader.error(node, f"a step has exactly one of {STEP_KEYS}")
    ((key, value),) = fields.items()
    builders: dict[str, Callable[[], ScriptStep]] = {
        "fail": lambda: _fail_step(reader, value),
        "subtask": lambda: _subtask_step(reader, value),
        "command": lambda: _command_step(reader, value),
        "budget": lambda: _budget_step(reader, value),
        "review": lambda: _review_step(reader, value),
        "spend": lambda: _spend_step(reader, value),
        "answer": lambda: _answer_step(reader, value),
    }
    return builders.get(key, lambda: _agent_step(reader, key, value))()
