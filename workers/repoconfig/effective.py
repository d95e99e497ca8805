"""The bot's defaults, and the settings a task runs with once a repository's file is merged."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from config.defaults import load_bot_defaults
from workers.agents.settings import AgentSettings, BudgetSettings
from workers.controller.limits import Limits, PhaseLimits, PlanRules, WaveLimits, WorkflowConfig
from workers.controller.plan_check import TddMode
from workers.controller.recovery import SpendCaps
from workers.controller.routing import DEFAULT_ADAPTERS, Routing
from workers.defaults import (
    load_default_agent_settings,
    load_default_routing,
    load_default_workflow_config,
)
from workers.repoconfig.model import (
    BudgetsOverride,
    LimitsOverride,
    PhaseLimitsOverride,
    RepoConfig,
)


@dataclass(frozen=True)
class RepoConfigDefaults:
    """What a repository's file is merged over; ``adapters`` are the valid routing adapters."""

    trigger_label: str
    workflow: WorkflowConfig
    agents: AgentSettings
    routing: Routing
    adapters: frozenset[str] = field(default=DEFAULT_ADAPTERS)


@dataclass(frozen=True)
class EffectiveConfig:
    """The settings of one repository: its file (if any) merged over the defaults.

    ``test_command`` None means: detect it from the checkout
    (:func:`workers.agents.testcmd.resolve_test_command`); ``setup_command`` None: detect
    it too (:mod:`workers.agents.environment.detect`). ``setup_network`` None takes
    ``agents.environment.network``. ``from_file`` tells whether the repository has a
    ``.github/agentium.yml``.
    """

    trigger_label: str
    workflow: WorkflowConfig
    agents: AgentSettings
    routing: Routing
    test_command: str | None = None
    from_file: bool = False
    setup_command: str | None = None
    setup_network: bool | None = None

    @property
    def limits(self) -> Limits:
        """The controller's limits, the recovery ladder knowing the task's spend budget (a
        stuck phase near the end of either its iterations or its budget cuts its scope)."""
        limits, budget = self.workflow.limits, self.agents.budget
        caps = SpendCaps(
            max_tokens=budget.max_tokens,
            max_dollars=budget.max_dollars,
            max_seconds=budget.max_seconds,
        )
        recovery = limits.recovery.model_copy(update={"budget": caps})
        return limits.model_copy(update={"recovery": recovery})

    @property
    def plan_rules(self) -> PlanRules:
        return self.workflow.plan_rules

    @property
    def budget(self) -> BudgetSettings:
        return self.agents.budget

    @property
    def network_for_setup(self) -> bool:
        network = self.setup_network
        return self.agents.environment.network if network is None else network


def load_repo_config_defaults(adapters: Collection[str] = DEFAULT_ADAPTERS) -> RepoConfigDefaults:
    """The shipped ``config/bot.yml``, ``workflow.yml``, ``agents.yml`` and ``routing.yml``."""
    return RepoConfigDefaults(
        trigger_label=load_bot_defaults().trigger_label,
        workflow=load_default_workflow_config(),
        agents=load_default_agent_settings(),
        routing=load_default_routing(adapters),
        adapters=frozenset(adapters),
    )


def defaults_only(defaults: RepoConfigDefaults) -> EffectiveConfig:
    """The settings of a repository without a settings file."""
    return EffectiveConfig(
        trigger_label=defaults.trigger_label,
        workflow=defaults.workflow,
        agents=defaults.agents,
        routing=defaults.routing,
    )


def _phase_limits(base: PhaseLimits, given: PhaseLimitsOverride | None) -> PhaseLimits:
    if given is None:
        return base
    return PhaseLimits.model_validate({**base.model_dump(), **given.model_dump(exclude_none=True)})


def merge_limits(base: Limits, given: LimitsOverride | None) -> Limits:
    if given is None:
        return base
    update: dict[str, object] = {
        "SIMPLE": _phase_limits(base.SIMPLE, given.SIMPLE),
        "COMPLEX": _phase_limits(base.COMPLEX, given.COMPLEX),
    }
    if given.eval_no_signal_limit is not None:
        update["eval_no_signal_limit"] = given.eval_no_signal_limit
    return Limits.model_validate({**base.model_dump(), **update})


def merge_workflow(base: WorkflowConfig, given: RepoConfig) -> WorkflowConfig:
    """The workflow settings with a repository's ``limits``, ``tdd`` and ``waves``."""
    update: dict[str, object] = {"limits": merge_limits(base.limits, given.limits)}
    if given.tdd is not None:
        update["tdd"] = TddMode(given.tdd)
    if given.waves is not None and given.waves.max_attempts is not None:
        update["waves"] = WaveLimits(max_attempts=given.waves.max_attempts)
    return base.model_copy(update=update)


def merge_budget(base: AgentSettings, given: BudgetsOverride | None) -> AgentSettings:
    if given is None:
        return base
    changed = given.model_dump(exclude_none=True)
    budget = BudgetSettings.model_validate({**base.budget.model_dump(), **changed})
    return base.model_copy(update={"budget": budget})
