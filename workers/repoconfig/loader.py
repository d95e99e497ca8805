"""Fetch ``.github/agentium.yml`` from a repository's default branch and parse it.

>>> settings = load_repo_config(gh, "octo/hello", "main", defaults)
>>> if isinstance(settings, RepoConfigError): ...  # post format_config_error(settings)

No file (404) means the defaults. Other GitHub errors (5xx after the client's retries, 401,
a rate limit) are raised as githubkit's ``RequestFailed``: the job should be retried.
"""

from __future__ import annotations

import base64
import binascii
import logging
from typing import Any, cast

from githubkit.exception import RequestFailed

from workers.github.client import GitHubClient
from workers.repoconfig.effective import EffectiveConfig, RepoConfigDefaults, defaults_only
from workers.repoconfig.errors import (
    CONFIG_PATH,
    MAX_CONFIG_BYTES,
    Problem,
    RepoConfigError,
    size_problem,
)
from workers.repoconfig.parse import parse_repo_config

log = logging.getLogger("agentium.repoconfig")

_KINDS = {"dir": "a directory", "symlink": "a symbolic link", "submodule": "a git submodule"}


def load_repo_config(
    gh: GitHubClient,
    repo: str,
    default_branch: str,
    defaults: RepoConfigDefaults,
    *,
    path: str = CONFIG_PATH,
) -> EffectiveConfig | RepoConfigError:
    """The settings of ``repo`` ("owner/name"), or what is wrong with its settings file."""
    owner, _, name = repo.partition("/")
    if not owner or not name or "/" in name:
        raise ValueError(f"not an owner/repo name: {repo!r}")
    try:
        answer = gh.rest.repos.get_content(owner, name, path, ref=default_branch)
    except RequestFailed as error:
        if error.response.status_code == 404:
            log.info("no %s in %s@%s: defaults", path, repo, default_branch)
            return defaults_only(defaults)
        if _too_large(error):
            return _error(path, default_branch, None, size_problem(None))
        raise
    item: Any = cast(Any, answer.parsed_data)
    kind = "dir" if isinstance(item, list) else str(getattr(item, "type", "unknown"))
    html_url = None if isinstance(item, list) else getattr(item, "html_url", None)
    if kind != "file":
        found = _KINDS.get(kind, f"a {kind!r} entry")
        problem = Problem("", f"expected a file, found {found}")
        return _error(path, default_branch, html_url, problem)
    text = _decode(item)
    if isinstance(text, Problem):
        return _error(path, default_branch, html_url, text)
    try:
        return parse_repo_config(text, defaults, path=path)
    except RepoConfigError as error:
        return error.located(ref=default_branch, html_url=html_url)


def _decode(item: Any) -> str | Problem:
    size = int(getattr(item, "size", 0) or 0)
    if size > MAX_CONFIG_BYTES:
        return size_problem(size)
    encoding = getattr(item, "encoding", "")
    if encoding != "base64":
        return Problem("", f"GitHub did not send the file's content (encoding {encoding!r})")
    try:
        raw = base64.b64decode(str(item.content))
    except (binascii.Error, ValueError):
        return Problem("", "GitHub sent the file in a form that could not be decoded")
    if len(raw) > MAX_CONFIG_BYTES:
        return size_problem(len(raw))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        return Problem("", "not UTF-8 text", line)


def _too_large(error: RequestFailed) -> bool:
    """GitHub answers 403 ``too_large`` for files over 1 MB on the JSON contents API."""
    return error.response.status_code == 403 and "too_large" in error.response.text


def _error(path: str, ref: str, html_url: str | None, problem: Problem) -> RepoConfigError:
    return RepoConfigError([problem], path=path, ref=ref, html_url=html_url)
