"""The long-lived collaborators of a worker process, built once from the settings.

`build_runtime` is the only place a worker builds real clients (GitHub, Anthropic, the
sandbox); everything below receives a `Runtime` or the parts it needs.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import anthropic
from redis import Redis
from rq import Queue

from config.settings import Settings
from workers.agents.anthropic_adapter import AnthropicAdapter
from workers.agents.llm import LLMAdapter
from workers.agents.prompts import Prompts
from workers.agents.retry import ModelRetryPolicy
from workers.agents.runner import AgentDeps, AgentRunner
from workers.agents.sandbox import Sandbox, open_sandbox
from workers.agents.settings import AgentSettings
from workers.controller.limits import WorkflowConfig
from workers.defaults import (
    load_default_agent_settings,
    load_default_prices,
    load_default_routing,
    load_default_workflow_config,
)
from workers.github.client import GitHubClients
from workers.gitops.workspace import Identity, bot_identity
from workers.repoconfig import RepoConfigDefaults, load_repo_config_defaults
from workers.tasks.store import TaskStore


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Runtime:
    settings: Settings
    redis: Redis
    queue: Queue
    store: TaskStore
    github: GitHubClients
    runner: AgentRunner
    workflow: WorkflowConfig
    identity: Identity
    config_defaults: RepoConfigDefaults
    now: Callable[[], datetime] = utc_now

    @property
    def data_dir(self) -> Path:
        return self.settings.data_dir.resolve()


def build_runtime(settings: Settings, redis: Redis) -> Runtime:
    settings.require("app_id", "app_slug", "private_key")
    assert settings.app_id is not None and settings.app_slug is not None
    agent_settings = load_default_agent_settings()
    return Runtime(
        settings=settings,
        redis=redis,
        queue=Queue(settings.queue_name, connection=redis),
        store=TaskStore(redis),
        github=GitHubClients.from_settings(
            settings, redis, write_interval_s=settings.github_write_interval_s
        ),
        runner=build_runner(
            settings, agent_settings, {"anthropic": anthropic_adapter(settings, agent_settings)}
        ),
        workflow=load_default_workflow_config(),
        identity=bot_identity(settings.app_id, settings.app_slug),
        config_defaults=load_repo_config_defaults(),
    )


def anthropic_adapter(settings: Settings, agent_settings: AgentSettings) -> LLMAdapter:
    """The SDK's own retries are off: the adapter owns them (retry-after, budgets)."""
    key = settings.anthropic_api_key
    client = anthropic.Anthropic(
        api_key=key.get_secret_value() if key else None,
        base_url=settings.anthropic_base_url,
        max_retries=0,
    )
    policy = ModelRetryPolicy(agent_settings.retry, random.random)
    return AnthropicAdapter(client, load_default_prices(), policy, sleep=time.sleep, now=time.time)


def build_sandbox(settings: Settings, agent_settings: AgentSettings) -> Sandbox:
    """The agents' sandbox; raises SandboxUnavailable (with what to install) when
    bubblewrap does not work here, unless AGENTIUM_UNSAFE_NO_SANDBOX is set."""
    # Masked if they fall inside something a command sees: the bot's data, its settings
    # file (every secret of `make run`) and the key file. Otherwise they are absent anyway.
    hidden = [settings.data_dir.resolve(), Path(".env").resolve()]
    if settings.private_key_path is not None:
        hidden.append(settings.private_key_path.resolve())
    return open_sandbox(
        agent_settings.sandbox, unsafe=settings.agentium_unsafe_no_sandbox, hidden=hidden
    )


def require_sandbox(settings: Settings) -> None:
    """Refuse to start a worker whose agents' commands could not be confined."""
    build_sandbox(settings, load_default_agent_settings())


def build_runner(
    settings: Settings, agent_settings: AgentSettings, adapters: dict[str, LLMAdapter]
) -> AgentRunner:
    deps = AgentDeps(
        adapters=adapters,
        routing=load_default_routing(),
        sandbox=build_sandbox(settings, agent_settings),
        prompts=Prompts(),
        settings=agent_settings,
        clock=time.monotonic,
    )
    return AgentRunner(deps)
