"""The issue comment for an invalid settings file."""

from __future__ import annotations

import re

from workers.github.bodies import marker
from workers.repoconfig import Problem, RepoConfigDefaults, RepoConfigError, format_config_error
from workers.repoconfig.comment import MAX_ROWS
from workers.repoconfig.parse import parse_repo_config

URL = "https://github.com/octo/hello/blob/main/.github/agentium.yml"


def error_of(text: str, defaults: RepoConfigDefaults) -> RepoConfigError:
    try:
        parse_repo_config(text, defaults)
    except RepoConfigError as error:
        return error.located(ref="main", html_url=URL)
    raise AssertionError("expected a RepoConfigError")


def test_the_body_says_which_file_line_and_key_and_that_nothing_started(
    defaults: RepoConfigDefaults,
) -> None:
    error = error_of("# settings\nlimits:\n  SIMPLE:\n    PLAN: 30\n", defaults)
    body = format_config_error(error, label="agentium")
    assert body.startswith(marker("config-error") + "\n")
    assert f"[`.github/agentium.yml`]({URL}) on the `main` branch" in body
    assert f"| [4]({URL}#L4) | `limits.SIMPLE.PLAN` | must be between 1 and 20 |" in body
    assert "**The task did not start**" in body
    assert "remove and add the `agentium` label again" in body
    for key in ("trigger_label", "limits", "test_command", "routing", "budgets"):
        assert f"- `{key}`:" in body


def test_without_a_link_or_line(defaults: RepoConfigDefaults) -> None:
    error = RepoConfigError([Problem("", "the file is too large; at most 65,536 bytes")])
    body = format_config_error(error, marker_name="config-error-run-2")
    assert body.startswith(marker("config-error-run-2"))
    assert "from `.github/agentium.yml`, and" in body
    assert "|  | (whole file) | the file is too large; at most 65,536 bytes |" in body
    assert "trigger me again" in body


def test_text_from_the_file_cannot_break_the_table_or_mention_people(
    defaults: RepoConfigDefaults,
) -> None:
    error = error_of("'@octo/team|x`y': 1\nrouting:\n  '<b>@all</b>': {}\n", defaults)
    body = format_config_error(error)
    assert "`@octo/team\\|x'y`" in body
    assert "`routing.<b>@all</b>`" in body  # literal inside a code span
    prose = re.sub(r"`[^`]*`", "", body)
    assert "<b>" not in prose and "@all" not in prose and "@octo" not in prose
    rows = [line for line in body.splitlines() if line.startswith("| ")]
    assert all(line.count(" | ") - line.count("\\| ") == 2 for line in rows[2:])


def test_many_problems_are_cut(defaults: RepoConfigDefaults) -> None:
    text = "".join(f"key{i}: 1\n" for i in range(MAX_ROWS + 5))
    body = format_config_error(error_of(text, defaults))
    assert "…and 5 more" in body
    assert "`key19`" in body and "`key20`" not in body
