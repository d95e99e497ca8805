"""The route of a call once the recovery ladder has acted on a stuck task.

Whether a task is stuck is no longer read off the judge's prose here: the controller
decides it from the failure history (the same failing tests, or the same normalised error
when no test failed; ``workers/controller/ladder.py``, docs/design.md §9) and says so in
the call's guidance. This module only turns that guidance into a route: the escalation
model for a worker after ESCALATE_MODEL, the role's fallback route after the doctor's
``rollback_provider``.
"""

from __future__ import annotations

import logging

from workers.controller.effects import RunAgent
from workers.controller.routing import Route, Routing

log = logging.getLogger("agentium.agents.stuck")


def ladder_route(routing: Routing, effect: RunAgent, escalation_model: str) -> Route:
    """The route ``effect`` runs on: its usual one, its fallback, or the escalation model."""
    guidance = effect.guidance
    key = effect.routing_key
    if guidance is None:
        return routing.resolve(key)
    route = routing.resolve_fallback(key) if guidance.fallback else routing.resolve(key)
    if guidance.escalate:
        log.info(
            "stuck worker on the escalation model",
            extra={"phase": effect.phase.value, "iteration": effect.iteration},
        )
        return Route(adapter=route.adapter, model=escalation_model)
    return route
