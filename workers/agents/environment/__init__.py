"""A task's environment (docs/design.md §10): ``step`` (set up once per worker and
dependency files, with the network, before the agents run), ``detect`` (the setup command
a repository needs), ``key`` (what the cache is keyed on), ``store`` (where environments
live, who builds them) and ``outcome`` (what the step gave, and the variables every later
command runs with)."""

from workers.agents.environment.outcome import Environment, EnvironmentOutcome
from workers.agents.environment.step import EnvironmentStep, SetupRequest

__all__ = ["Environment", "EnvironmentOutcome", "EnvironmentStep", "SetupRequest"]
