"""The agents' settings (``config/agents.yml``), validated with errors naming the key."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeFloat,
    PositiveFloat,
    PositiveInt,
    ValidationError,
)

from workers.controller.errors import ConfigError
from workers.controller.phases import Role

_STRICT = ConfigDict(frozen=True, extra="forbid")


class RunLimits(BaseModel):
    model_config = _STRICT
    max_steps: PositiveInt = 60
    max_tokens: PositiveInt = 3_000_000
    max_seconds: PositiveFloat = 1800.0


class BudgetSettings(BaseModel):
    model_config = _STRICT
    max_tokens: PositiveInt = 30_000_000
    max_dollars: PositiveFloat = 40.0
    max_seconds: PositiveFloat = 14_400.0


class RetrySettings(BaseModel):
    model_config = _STRICT
    max_attempts: PositiveInt = 6
    base_delay: NonNegativeFloat = 1.0
    max_delay: NonNegativeFloat = 60.0
    max_total_wait: NonNegativeFloat = 300.0


class SandboxLimits(BaseModel):
    """Resource limits of one command (set inside the sandbox, so the command cannot raise
    them): processes in its user namespace, data memory and file size per process, the
    size of its private ``/tmp``."""

    model_config = _STRICT
    processes: PositiveInt = 256
    memory_bytes: PositiveInt = 1 << 30
    file_bytes: PositiveInt = 1 << 30
    open_files: PositiveInt = 4096
    tmp_bytes: PositiveInt = 256 << 20


class HostIdentity(BaseModel):
    """The host user commands run as when the worker itself runs as root."""

    model_config = _STRICT
    uid: int = Field(default=65534, ge=1)
    gid: int = Field(default=65534, ge=1)


_SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")


class SandboxSettings(BaseModel):
    model_config = _STRICT
    timeout_seconds: PositiveFloat = 600.0
    output_cap_bytes: PositiveInt = 65_536
    path: str = "/usr/local/bin:/usr/bin:/bin"
    env: dict[str, str] = Field(default_factory=dict)
    limits: SandboxLimits = SandboxLimits()
    system_paths: tuple[str, ...] = _SYSTEM_PATHS
    run_as: HostIdentity = HostIdentity()


class EnvironmentSettings(BaseModel):
    """The environment step (``workers/agents/environment``): how long the setup may run,
    how much of its output is kept (and how much of its end the agents and people see),
    whether it has the network unless a repository says otherwise, and how many
    environments of one repository a worker keeps on its disk."""

    model_config = _STRICT
    timeout_seconds: PositiveFloat = 900.0
    output_cap_bytes: PositiveInt = 262_144
    tail_chars: PositiveInt = 3000
    network: bool = True
    keep_per_repo: PositiveInt = 3


class ContextSettings(BaseModel):
    model_config = _STRICT
    tool_output_chars: PositiveInt = 20_000
    diff_chars: PositiveInt = 60_000
    test_output_chars: PositiveInt = 8_000
    judge_directive_chars: PositiveInt = 1_500
    feedback_chars: PositiveInt = 20_000
    plan_chars: PositiveInt = 20_000
    repo_map_chars: PositiveInt = 12_000
    diff_stat_chars: PositiveInt = 4_000


class WindowSettings(BaseModel):
    """The context window of one agent run (see :mod:`workers.agents.window`)."""

    model_config = _STRICT
    default_tokens: PositiveInt = 200_000
    models: dict[str, PositiveInt] = Field(default_factory=dict)
    margin: float = Field(default=0.1, ge=0.0, lt=1.0)
    prune_at: float = Field(default=0.5, gt=0.0, le=1.0)
    prune_to: float = Field(default=0.25, gt=0.0, le=1.0)
    keep_turns: PositiveInt = 4
    summary_chars: PositiveInt = 8_000
    chars_per_token: PositiveFloat = 3.0

    def tokens_for(self, model: str) -> int:
        """The window of ``model``, also for dated ids (``claude-x-5-5-20261001``)."""
        for name in sorted(self.models, key=len, reverse=True):
            if model == name or model.startswith(name + "-"):
                return self.models[name]
        return self.default_tokens


class OutputSettings(BaseModel):
    """Output tokens per model call, and what happens when an answer reaches them."""

    model_config = _STRICT
    max_tokens: PositiveInt = 8192
    max_tokens_cap: PositiveInt = 32_000
    continuations: int = Field(default=3, ge=0, le=10)


CacheTTL = Literal["5m", "1h"]


def _default_cache_ttl() -> dict[Role, CacheTTL]:
    return {
        Role.WORKER: "1h",
        Role.REVIEWER: "1h",
        Role.JUDGE: "1h",
        Role.ASSESSOR: "5m",
        Role.DOCTOR: "5m",
        Role.REPLANNER: "5m",
    }


class EscalationSettings(BaseModel):
    model_config = _STRICT
    model: str = "claude-opus-5-5"


def _default_run_limits() -> dict[Role, RunLimits]:
    return {
        Role.WORKER: RunLimits(),
        Role.REVIEWER: RunLimits(max_steps=20, max_tokens=1_000_000, max_seconds=600),
        Role.JUDGE: RunLimits(max_steps=2, max_tokens=200_000, max_seconds=300),
        Role.ASSESSOR: RunLimits(max_steps=2, max_tokens=100_000, max_seconds=120),
        Role.DOCTOR: RunLimits(max_steps=2, max_tokens=200_000, max_seconds=300),
        Role.REPLANNER: RunLimits(max_steps=20, max_tokens=1_000_000, max_seconds=600),
    }


class AgentSettings(BaseModel):
    model_config = _STRICT
    run_limits: dict[Role, RunLimits] = Field(default_factory=_default_run_limits)
    output: OutputSettings = OutputSettings()
    window: WindowSettings = WindowSettings()
    cache_ttl: dict[Role, CacheTTL] = Field(default_factory=_default_cache_ttl)
    budget: BudgetSettings = BudgetSettings()
    retry: RetrySettings = RetrySettings()
    sandbox: SandboxSettings = SandboxSettings()
    environment: EnvironmentSettings = EnvironmentSettings()
    context: ContextSettings = ContextSettings()
    escalation: EscalationSettings = EscalationSettings()

    def limits_for(self, role: Role) -> RunLimits:
        return self.run_limits.get(role, RunLimits())

    def ttl_for(self, role: Role) -> CacheTTL:
        return self.cache_ttl.get(role, "5m")


def parse_agent_settings(data: Mapping[str, Any] | None, source: str = "agents") -> AgentSettings:
    """Validate ``data``; missing keys take the defaults, unknown keys are errors."""
    try:
        return AgentSettings.model_validate(dict(data or {}))
    except ValidationError as error:
        lines = [f"{source}: invalid agent settings"]
        for item in error.errors(include_input=False, include_url=False):
            where = ".".join(str(part) for part in item["loc"])
            lines.append(f"  {where}: {item['msg']}")
        raise ConfigError("\n".join(lines)) from None
