"""Parse a repository's ``.github/agentium.yml`` and merge it over the bot's defaults.

>>> parse_repo_config("limits:\\n  SIMPLE:\\n    PLAN: 2\\n", defaults).limits.SIMPLE.PLAN
2

Every error found is reported at once, each naming the key and its line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import yaml
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from workers.controller.errors import ConfigError
from workers.controller.routing import Routing, parse_routing
from workers.repoconfig.effective import (
    EffectiveConfig,
    RepoConfigDefaults,
    defaults_only,
    merge_budget,
    merge_workflow,
)
from workers.repoconfig.errors import (
    CONFIG_PATH,
    MAX_CONFIG_BYTES,
    Problem,
    RepoConfigError,
    size_problem,
)
from workers.repoconfig.model import RepoConfig, allowed_keys
from workers.repoconfig.yamlnodes import KeyLines, key_lines

_EXPECTED = {
    "int_type": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "string_type": "a string",
    "dict_type": "a mapping (key: value)",
    "model_type": "a mapping (key: value)",
    "model_attributes_type": "a mapping (key: value)",
}


def parse_repo_config(
    text: str, defaults: RepoConfigDefaults, *, path: str = CONFIG_PATH
) -> EffectiveConfig:
    """The settings of a repository whose file holds ``text``; raises :class:`RepoConfigError`.

    An empty file (or one holding only comments) gives the defaults.
    """
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_CONFIG_BYTES:
        raise RepoConfigError([size_problem(size)], path=path)
    root, data = _load_yaml(text, path)
    if root is None or data is None:
        return replace(defaults_only(defaults), from_file=True)
    where = key_lines(root)
    if not isinstance(data, Mapping):
        message = "expected a mapping of settings (key: value) at the top level"
        raise RepoConfigError([Problem("", message, where.line_of(()))], path=path)
    problems = [
        Problem(".".join(key), "written twice; keep only one", line)
        for key, line in where.duplicates
    ]
    config = _validate(data, where, problems)
    routing = _routing(data.get("routing"), defaults, where, problems)
    if problems or config is None:
        raise RepoConfigError(problems, path=path)
    return EffectiveConfig(
        trigger_label=config.trigger_label or defaults.trigger_label,
        workflow=merge_workflow(defaults.workflow, config),
        agents=merge_budget(defaults.agents, config.budgets),
        routing=routing,
        test_command=config.test_command,
        from_file=True,
        setup_command=config.setup_command,
        setup_network=config.setup_network,
    )


def _load_yaml(text: str, path: str) -> tuple[yaml.Node | None, Any]:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader), yaml.safe_load(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = int(mark.line) + 1 if mark is not None else None
        detail = error.problem or "invalid YAML"
        if error.context:
            detail = f"{detail} ({error.context})"
        raise RepoConfigError([Problem("", f"invalid YAML: {detail}", line)], path=path) from None
    except yaml.YAMLError as error:
        raise RepoConfigError([Problem("", f"invalid YAML: {error}")], path=path) from None
    except RecursionError:
        raise RepoConfigError([Problem("", "the YAML is nested too deeply")], path=path) from None


def _validate(
    data: Mapping[str, Any], where: KeyLines, problems: list[Problem]
) -> RepoConfig | None:
    try:
        return RepoConfig.model_validate(dict(data))
    except ValidationError as error:
        for item in error.errors(include_url=False):
            loc = tuple(str(part) for part in item["loc"])
            problems.append(Problem(".".join(loc), _message(item, loc), where.line_of(loc)))
        return None


def _message(item: ErrorDetails, loc: tuple[str, ...]) -> str:
    if item["type"] == "extra_forbidden":
        allowed = ", ".join(allowed_keys(loc[:-1]))
        return f"unknown key; allowed here: {allowed}" if allowed else "unknown key"
    expected = _EXPECTED.get(item["type"])
    if expected is not None:
        return f"expected {expected}, got {_kind(item.get('input'))}"
    return str(item["msg"])


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, str):
        return f"text {value[:40]!r}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    return type(value).__name__


def _routing(
    section: object, defaults: RepoConfigDefaults, where: KeyLines, problems: list[Problem]
) -> Routing:
    """Overrides laid over the default routing; each key checked on its own for its line."""
    if not isinstance(section, Mapping) or not section:
        return defaults.routing  # a wrong type is reported by the schema
    found = len(problems)
    for key, value in section.items():
        try:
            _overlay({key: value}, defaults)
        except ConfigError as error:
            problems.append(_routing_problem(str(key), str(error), where))
    return defaults.routing if len(problems) > found else _overlay(section, defaults)


def _overlay(overrides: Mapping[Any, Any], defaults: RepoConfigDefaults) -> Routing:
    data = {"routing": {"overrides": dict(overrides)}}
    return parse_routing(data, defaults.adapters, base=defaults.routing)


def _routing_problem(key: str, error: str, where: KeyLines) -> Problem:
    """The routing module names ``routing.overrides.KEY[.FIELD]``; here it is ``routing.KEY``."""
    prefix = f"routing.overrides.{key}"
    named, _, message = error.partition(": ")
    loc: tuple[str, ...] = ("routing", key)
    if named.startswith(prefix + "."):
        loc = (*loc, named[len(prefix) + 1 :])
    elif named != prefix:
        message = error
    return Problem(".".join(loc), message, where.line_of(loc))
