"""Parsing `.github/agentium.yml` and merging it over the defaults (no GitHub involved)."""

from __future__ import annotations

import time

import pytest

from workers.controller.errors import ConfigError
from workers.controller.phases import Path, Phase
from workers.controller.routing import Route
from workers.repoconfig import (
    MAX_CONFIG_BYTES,
    Problem,
    RepoConfigDefaults,
    RepoConfigError,
    parse_repo_config,
)

README_EXAMPLE = """\
# .github/agentium.yml: every key is optional
trigger_label: ai-task
limits:
  SIMPLE:
    IMPLEMENT: 3
  COMPLEX:
    PLAN: 2
    IMPLEMENT: 8
  eval_no_signal_limit: 1
test_command: make test
routing:
  IMPLEMENT:
    model: claude-opus-5-5
  JUDGE:
    model: claude-haiku-5-5
budgets:
  max_dollars: 15
  max_seconds: 7200
"""


def errors_of(text: str, defaults: RepoConfigDefaults) -> list[Problem]:
    with pytest.raises(RepoConfigError) as caught:
        parse_repo_config(text, defaults)
    return list(caught.value.problems)


def only_error(text: str, defaults: RepoConfigDefaults) -> Problem:
    (problem,) = errors_of(text, defaults)
    return problem


@pytest.mark.parametrize("text", ["", "# nothing set yet\n", "---\n", "~\n"])
def test_an_empty_file_gives_the_defaults(text: str, defaults: RepoConfigDefaults) -> None:
    config = parse_repo_config(text, defaults)
    assert config.from_file
    assert config.trigger_label == defaults.trigger_label == "agentium"
    assert config.workflow == defaults.workflow
    assert config.agents == defaults.agents
    assert config.routing == defaults.routing
    assert config.test_command is None


def test_the_readme_example(defaults: RepoConfigDefaults) -> None:
    config = parse_repo_config(README_EXAMPLE, defaults)
    assert config.trigger_label == "ai-task"
    assert config.limits.max_iterations(Path.SIMPLE, Phase.IMPLEMENT) == 3
    assert config.limits.max_iterations(Path.COMPLEX, Phase.IMPLEMENT) == 8
    assert config.limits.eval_no_signal_limit == 1
    assert config.test_command == "make test"
    assert config.routing.resolve("IMPLEMENT") == Route("anthropic", "claude-opus-5-5")
    assert config.routing.resolve("PLAN_JUDGE").model == "claude-haiku-5-5"
    assert config.budget.max_dollars == 15.0
    assert config.budget.max_seconds == 7200.0
    assert config.budget.max_tokens == defaults.agents.budget.max_tokens


def test_trigger_label_overrides(defaults: RepoConfigDefaults) -> None:
    assert parse_repo_config("trigger_label: '  bot please '\n", defaults).trigger_label == (
        "bot please"
    )


def test_limits_are_merged_key_by_key(defaults: RepoConfigDefaults) -> None:
    config = parse_repo_config("limits:\n  SIMPLE:\n    PLAN: 4\n", defaults)
    base = defaults.workflow.limits
    assert config.limits.SIMPLE.PLAN == 4
    assert config.limits.SIMPLE.IMPLEMENT == base.SIMPLE.IMPLEMENT
    assert config.limits.COMPLEX == base.COMPLEX
    assert config.limits.eval_no_signal_limit == base.eval_no_signal_limit
    assert config.workflow.memory == defaults.workflow.memory
    assert defaults.workflow.limits.SIMPLE.PLAN == 1  # the defaults are not changed


def test_eval_no_signal_limit_may_be_zero(defaults: RepoConfigDefaults) -> None:
    config = parse_repo_config("limits: {eval_no_signal_limit: 0}\n", defaults)
    assert config.limits.eval_no_signal_limit == 0
    assert config.limits.SIMPLE == defaults.workflow.limits.SIMPLE


def test_test_command_overrides(defaults: RepoConfigDefaults) -> None:
    config = parse_repo_config("test_command: tox -e py311\n", defaults)
    assert config.test_command == "tox -e py311"


def test_the_setup_command_and_its_network(defaults: RepoConfigDefaults) -> None:
    config = parse_repo_config("setup_command: make deps\nsetup_network: false\n", defaults)
    assert (config.setup_command, config.setup_network) == ("make deps", False)
    assert config.network_for_setup is False
    detected = parse_repo_config("test_command: make\n", defaults)
    assert (detected.setup_command, detected.network_for_setup) == (None, True)


def test_routing_overrides_are_laid_over_the_defaults(defaults: RepoConfigDefaults) -> None:
    text = "routing:\n  PLAN: {model: big}\n  REVIEW: {adapter: scripted}\n"
    config = parse_repo_config(text, defaults)
    assert config.routing.resolve("PLAN") == Route("anthropic", "big")
    assert config.routing.resolve("DOCS_REVIEW") == Route("scripted", "claude-sonnet-5-5")
    assert config.routing.resolve("COMPLEXITY").model == "claude-haiku-5-5"  # shipped override
    assert config.routing.default == defaults.routing.default


def test_budgets_are_merged(defaults: RepoConfigDefaults) -> None:
    config = parse_repo_config("budgets:\n  max_tokens: 1000000\n", defaults)
    assert config.budget.max_tokens == 1_000_000
    assert config.budget.max_dollars == defaults.agents.budget.max_dollars
    assert config.agents.run_limits == defaults.agents.run_limits
    assert config.agents.sandbox == defaults.agents.sandbox


def test_null_keeps_the_default(defaults: RepoConfigDefaults) -> None:
    text = "trigger_label: null\nlimits:\n  SIMPLE: {PLAN: ~}\ntest_command:\nbudgets: null\n"
    config = parse_repo_config(text, defaults)
    assert config.trigger_label == "agentium"
    assert config.workflow.limits == defaults.workflow.limits
    assert config.test_command is None
    assert config.budget == defaults.agents.budget


def test_the_message_names_the_file_line_and_key(defaults: RepoConfigDefaults) -> None:
    text = "# settings\ntrigger_label: ai\nlimits:\n  SIMPLE:\n    PLAN: 30\n"
    with pytest.raises(RepoConfigError) as caught:
        parse_repo_config(text, defaults)
    assert str(caught.value) == (
        "`.github/agentium.yml` line 5: limits.SIMPLE.PLAN: must be between 1 and 20"
    )
    assert isinstance(caught.value, ConfigError)


@pytest.mark.parametrize(
    ("text", "key", "line", "allowed"),
    [
        ("trigger_label: x\nlabel: ai\n", "label", 2, "trigger_label, limits, test_command"),
        ("limits:\n  MEDIUM: {PLAN: 1}\n", "limits.MEDIUM", 2, "SIMPLE, COMPLEX"),
        ("limits:\n  SIMPLE:\n    REVIEW: 1\n", "limits.SIMPLE.REVIEW", 3, "PLAN, IMPLEMENT, DOCS"),
        ("budgets:\n  max_euros: 3\n", "budgets.max_euros", 2, "max_tokens, max_dollars"),
    ],
)
def test_unknown_keys(
    text: str, key: str, line: int, allowed: str, defaults: RepoConfigDefaults
) -> None:
    problem = only_error(text, defaults)
    assert (problem.key, problem.line) == (key, line)
    assert problem.message.startswith("unknown key; allowed here: ")
    assert allowed in problem.message


@pytest.mark.parametrize(
    ("text", "key", "line", "message"),
    [
        ("trigger_label: 3\n", "trigger_label", 1, "expected a string, got the number 3"),
        ("trigger_label: ''\n", "trigger_label", 1, "must not be empty"),
        ("trigger_label: " + "x" * 51 + "\n", "trigger_label", 1, "must be at most 50 characters"),
        ("test_command: [make, test]\n", "test_command", 1, "expected a string, got a list"),
        ("test_command: true\n", "test_command", 1, "expected a string, got true (a boolean)"),
        ("limits: 5\n", "limits", 1, "expected a mapping (key: value), got the number 5"),
        ("limits:\n  SIMPLE:\n    PLAN: '2'\n", "limits.SIMPLE.PLAN", 3, "expected an integer"),
        ("limits:\n  SIMPLE:\n    PLAN: 2.5\n", "limits.SIMPLE.PLAN", 3, "expected an integer"),
        ("limits:\n  SIMPLE:\n    DOCS: yes\n", "limits.SIMPLE.DOCS", 3, "expected an integer"),
        ("budgets:\n  max_dollars: ten\n", "budgets.max_dollars", 2, "expected a number"),
        ("routing: [PLAN]\n", "routing", 1, "expected a mapping (key: value), got a list"),
        ("setup_network: 'no'\n", "setup_network", 1, "expected true or false"),
        ("setup_network: 0\n", "setup_network", 1, "expected true or false"),
        ("setup_command: ''\n", "setup_command", 1, "must not be empty"),
    ],
)
def test_bad_types(
    text: str, key: str, line: int, message: str, defaults: RepoConfigDefaults
) -> None:
    problem = only_error(text, defaults)
    assert (problem.key, problem.line) == (key, line)
    assert problem.message.startswith(message)


@pytest.mark.parametrize(
    ("text", "key", "message"),
    [
        ("limits:\n  SIMPLE:\n    PLAN: 0\n", "limits.SIMPLE.PLAN", "must be between 1 and 20"),
        ("limits:\n  COMPLEX:\n    DOCS: 21\n", "limits.COMPLEX.DOCS", "must be between 1 and 20"),
        ("limits:\n  eval_no_signal_limit: -1\n", "limits.eval_no_signal_limit", "0 and 20"),
        ("budgets:\n  max_tokens: 0\n", "budgets.max_tokens", "must be a positive number"),
        ("budgets:\n  max_dollars: -5\n", "budgets.max_dollars", "must be a positive number"),
        ("budgets:\n  max_seconds: .inf\n", "budgets.max_seconds", "must be a positive number"),
        ("budgets:\n  max_seconds: .nan\n", "budgets.max_seconds", "must be a positive number"),
    ],
)
def test_out_of_range(text: str, key: str, message: str, defaults: RepoConfigDefaults) -> None:
    problem = only_error(text, defaults)
    assert problem.key == key
    assert message in problem.message
    assert problem.line == text.count("\n")


@pytest.mark.parametrize(
    ("text", "key", "line", "message"),
    [
        ("routing:\n  PLANNING: {model: x}\n", "routing.PLANNING", 2, "unknown routing key"),
        ("routing:\n  default: {model: x}\n", "routing.default", 2, "unknown routing key"),
        ("routing:\n  PLAN:\n    adapter: openai\n", "routing.PLAN.adapter", 3, "unknown adapter"),
        ("routing:\n  PLAN: {temperature: 1}\n", "routing.PLAN", 2, "unknown field(s)"),
        ("routing:\n  PLAN: big-model\n", "routing.PLAN", 2, "expected a mapping"),
        ("routing:\n  PLAN:\n    model: ''\n", "routing.PLAN.model", 3, "non-empty string"),
    ],
)
def test_bad_routing(
    text: str, key: str, line: int, message: str, defaults: RepoConfigDefaults
) -> None:
    problem = only_error(text, defaults)
    assert (problem.key, problem.line) == (key, line)
    assert message in problem.message


def test_oversized_file(defaults: RepoConfigDefaults) -> None:
    text = "# " + "x" * MAX_CONFIG_BYTES + "\n"
    problem = only_error(text, defaults)
    assert problem.key == "" and problem.line is None
    assert "65,536 bytes" in problem.message


def test_a_file_at_the_size_limit_is_read(defaults: RepoConfigDefaults) -> None:
    text = "test_command: make\n"
    text += "#" * (MAX_CONFIG_BYTES - len(text) - 1) + "\n"
    assert parse_repo_config(text, defaults).test_command == "make"


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("trigger_label: ai\nlimits:\n  SIMPLE: {PLAN: 1\n", 4, "invalid YAML"),
        ("trigger_label: ai\nlimits:\n\tSIMPLE: 1\n", 3, "'\\t'"),
        ("a: 1\n  b: 2\n", 2, "mapping values are not allowed here"),
        ("x: !!python/object/apply:os.system [ls]\n", 1, "could not determine a constructor"),
        ("a: 1\n---\nb: 2\n", 2, "expected a single document"),
    ],
)
def test_yaml_syntax_errors_name_the_line(
    text: str, line: int, fragment: str, defaults: RepoConfigDefaults
) -> None:
    problem = only_error(text, defaults)
    assert problem.line == line
    assert fragment in problem.message
    assert problem.message.startswith("invalid YAML: ")


def test_the_top_level_must_be_a_mapping(defaults: RepoConfigDefaults) -> None:
    problem = only_error("- trigger_label: ai\n", defaults)
    assert problem.message == "expected a mapping of settings (key: value) at the top level"


def test_a_key_written_twice_is_an_error(defaults: RepoConfigDefaults) -> None:
    problem = only_error("test_command: a\ntrigger_label: x\ntest_command: b\n", defaults)
    assert (problem.key, problem.line) == ("test_command", 3)
    assert "twice" in problem.message


def test_every_problem_is_reported_in_line_order(defaults: RepoConfigDefaults) -> None:
    text = "colour: red\nlimits:\n  SIMPLE: {PLAN: 99}\nrouting:\n  NOPE: {}\nbudgets: 3\n"
    problems = errors_of(text, defaults)
    assert [(p.key, p.line) for p in problems] == [
        ("colour", 1),
        ("limits.SIMPLE.PLAN", 3),
        ("routing.NOPE", 5),
        ("budgets", 6),
    ]


def test_deep_nesting_and_alias_bombs_fail_fast(defaults: RepoConfigDefaults) -> None:
    assert "nested too deeply" in only_error("[" * 30_000, defaults).message
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    started = time.monotonic()
    problems = errors_of("\n".join(lines) + "\n", defaults)
    assert time.monotonic() - started < 5
    assert {p.key for p in problems} == {f"a{i}" for i in range(9)}
