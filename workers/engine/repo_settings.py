"""A task's configuration: the repository's `.github/agentium.yml` over the defaults.

The file is read once, when the task begins, from the task's base commit in its own
checkout (no GitHub request, and nothing the agents later write can change it); its text
is kept with the task so every step of every worker applies the same settings.
"""

from __future__ import annotations

from pathlib import Path

from workers.gitops.runner import Git
from workers.repoconfig import (
    CONFIG_PATH,
    EffectiveConfig,
    RepoConfigDefaults,
    RepoConfigError,
    defaults_only,
    load_repo_config,
    parse_repo_config,
)
from workers.runtime import Runtime


def config_text_at(git: Git, checkout: Path, commit: str) -> str | None:
    """The settings file as committed at `commit`, or None when there is none."""
    done = git.run("show", f"{commit}:{CONFIG_PATH}", cwd=checkout, check=False)
    return done.stdout if done.returncode == 0 else None


def effective_config(defaults: RepoConfigDefaults, text: str | None) -> EffectiveConfig:
    """The task's settings; raises RepoConfigError for a bad file."""
    return defaults_only(defaults) if text is None else parse_repo_config(text, defaults)


def trigger_label_of(rt: Runtime, repo: str, installation: int, branch: str) -> str:
    """A repository's trigger label, read through the GitHub API (for the intake)."""
    found = load_repo_config(rt.github.installation(installation), repo, branch, rt.config_defaults)
    if isinstance(found, RepoConfigError):
        return rt.config_defaults.trigger_label
    return found.trigger_label
