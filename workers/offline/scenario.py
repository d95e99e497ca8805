"""Scenario files for the simulator: scripted agent outputs, validated with line numbers.

The format is documented in the README. Every error names the file and line; the steps are
read by :mod:`workers.offline.scenario_steps`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import Node, SequenceNode

from workers.controller.errors import ConfigError
from workers.controller.limits import WorkflowConfig, parse_workflow_config
from workers.controller.testrun import TestRun
from workers.offline.scenario_steps import (
    TEST_COMMAND,
    Reader,
    ScenarioError,
    ScriptStep,
    parse_step,
    read_test_run,
)

__all__ = [
    "TEST_COMMAND",
    "Scenario",
    "ScenarioError",
    "ScriptStep",
    "load_scenario",
    "parse_scenario",
]

TOP_KEYS = ("task", "pr_number", "settings", "baseline", "steps", "expect")
EXPECT_KEYS: tuple[str, ...] = ("final_phase", "path", "controller_overrode", "pr", "iterations")
EXPECT_KEYS += ("review_rounds", "spend", "trace", "recovery")


@dataclass(frozen=True)
class Scenario:
    source: str
    task: str
    pr_number: int
    settings: WorkflowConfig
    steps: tuple[ScriptStep, ...]
    expect: dict[str, Any] = field(default_factory=dict)
    baseline: TestRun | None = None  # the test command on the base commit (None: not taken)


def _settings(reader: Reader, node: Node | None) -> WorkflowConfig:
    if node is None:
        return WorkflowConfig()
    try:
        return parse_workflow_config(reader.value(node), "settings")
    except ConfigError as error:
        raise reader.error(node, str(error)) from None


def _expect(reader: Reader, node: Node | None) -> dict[str, Any]:
    if node is None:
        return {}
    fields = reader.mapping(node, "expect", EXPECT_KEYS)
    return {key: reader.value(value) for key, value in fields.items()}


def parse_scenario(text: str, source: str = "<scenario>") -> Scenario:
    reader = Reader(source)
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
        steps=tuple(parse_step(reader, node) for node in fields["steps"].value),
        expect=_expect(reader, fields.get("expect")),
        baseline=read_test_run(reader, fields["baseline"], "baseline")
        if "baseline" in fields
        else None,
    )


def load_scenario(path: str | Path) -> Scenario:
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise ScenarioError(f"{file}: cannot read the scenario: {error.strerror}") from None
    return parse_scenario(text, str(file))
