"""The bot's shipped defaults (``config/*.yml``), read as the models that use them.

The only place that reads them: the controller and the agents stay free of file I/O, and
the composition roots (``workers/runtime.py``, local mode, the benchmarks) call these.
"""

from __future__ import annotations

from collections.abc import Collection

from config.defaults import read_yaml
from workers.agents.pricing import PriceTable, parse_prices
from workers.agents.settings import AgentSettings, parse_agent_settings
from workers.controller.limits import WorkflowConfig, parse_workflow_config
from workers.controller.routing import DEFAULT_ADAPTERS, Routing, parse_routing


def load_default_workflow_config() -> WorkflowConfig:
    """The shipped ``config/workflow.yml``."""
    return parse_workflow_config(read_yaml("workflow.yml"), "config/workflow.yml")


def load_default_routing(adapters: Collection[str] = DEFAULT_ADAPTERS) -> Routing:
    """The shipped ``config/routing.yml``, validated."""
    return parse_routing(read_yaml("routing.yml"), adapters)


def load_default_agent_settings() -> AgentSettings:
    """The shipped ``config/agents.yml``."""
    return parse_agent_settings(read_yaml("agents.yml"), "config/agents.yml")


def load_default_prices() -> PriceTable:
    """The shipped ``config/prices.yml``."""
    return parse_prices(read_yaml("prices.yml"), "config/prices.yml")
