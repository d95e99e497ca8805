"""Per-repository settings from ``.github/agentium.yml`` on the default branch.

>>> defaults = load_repo_config_defaults()                      # once, at the composition root
>>> settings = load_repo_config(gh, "octo/hello", "main", defaults)
>>> if isinstance(settings, RepoConfigError):
...     body = format_config_error(settings, label=defaults.trigger_label)   # post on the issue
"""

from workers.repoconfig.comment import format_config_error
from workers.repoconfig.effective import (
    EffectiveConfig,
    RepoConfigDefaults,
    defaults_only,
    load_repo_config_defaults,
)
from workers.repoconfig.errors import CONFIG_PATH, MAX_CONFIG_BYTES, Problem, RepoConfigError
from workers.repoconfig.loader import load_repo_config
from workers.repoconfig.model import RepoConfig
from workers.repoconfig.parse import parse_repo_config

__all__ = [
    "CONFIG_PATH",
    "MAX_CONFIG_BYTES",
    "EffectiveConfig",
    "Problem",
    "RepoConfig",
    "RepoConfigDefaults",
    "RepoConfigError",
    "defaults_only",
    "format_config_error",
    "load_repo_config",
    "load_repo_config_defaults",
    "parse_repo_config",
]
