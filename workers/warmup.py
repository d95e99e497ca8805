"""What every job would do again on its first use: done once, before the worker forks.

RQ runs each job in a work-horse forked from the worker. What a job builds the first time
it needs it (a compiled prompt template; the Anthropic SDK's response models and tracing
module) dies with its work-horse, and the next job builds it again on its way to its first
model request. Built here once, it is inherited by every work-horse (README Performance
gives what it saves). Nothing here reaches the network.
"""

from __future__ import annotations

import logging
import random
import time

from workers.agents.anthropic_warmup import warm_up_anthropic
from workers.agents.retry import ModelRetryPolicy
from workers.defaults import load_default_agent_settings, load_default_prices
from workers.runtime import Runtime

log = logging.getLogger("agentium.worker")


def warm_up(rt: Runtime) -> None:
    started = time.perf_counter()
    templates = rt.runner.deps.prompts.compile_all()
    policy = ModelRetryPolicy(load_default_agent_settings().retry, random.random)
    warm_up_anthropic(load_default_prices(), policy)
    ms = round((time.perf_counter() - started) * 1000, 1)
    log.info("warmed up", extra={"templates": len(templates), "ms": ms})
