from __future__ import annotations

import pytest

from tests.fakes.github_fixtures import clients, clock, credentials, fake_github
from workers.repoconfig import RepoConfigDefaults, load_repo_config_defaults

__all__ = ["clients", "clock", "credentials", "defaults", "fake_github"]


@pytest.fixture(scope="session")
def defaults() -> RepoConfigDefaults:
    return load_repo_config_defaults()
