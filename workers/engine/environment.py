"""The environment step of a task's step (docs/design.md §10): before the first agent call
on every worker, the task's environment is found in this worker's cache or set up, its
outcome kept with the task (the dashboard reads it) and shown in the status comment. The
baseline, the test command's run on the base commit in that environment, is taken beside
the first agent call (workers/engine/baseline.py)."""

from __future__ import annotations

from workers.agents.environment import (
    Environment,
    EnvironmentOutcome,
    EnvironmentStep,
    SetupRequest,
)
from workers.engine.session import TaskSession
from workers.github.bodies import EnvironmentLine
from workers.repoconfig import EffectiveConfig
from workers.runtime import Runtime


def set_up(rt: Runtime, session: TaskSession, config: EffectiveConfig) -> Environment:
    """The task's environment on this worker, for the agents of this step."""
    record = session.record
    if record.base_sha is None:
        raise ValueError("the environment step needs the task's base commit")
    step = EnvironmentStep(
        rt.runner.deps.sandbox,
        session.workspace.git,
        rt.data_dir / "envs",
        config.agents.environment,
    )
    request = SetupRequest(
        repo=record.repo,
        checkout=session.workspace.path,
        base_sha=record.base_sha,
        command=config.setup_command,
        network=config.network_for_setup,
        task=record.key,
    )
    environment = step.ensure(request)
    record.environment = environment.outcome
    session.environment = environment
    session.effects.environment = environment_line(environment.outcome)
    return environment


def environment_line(outcome: EnvironmentOutcome | None) -> EnvironmentLine | None:
    """What the status comment shows: the outcome's line, and a failed setup's log end."""
    if outcome is None:
        return None
    return EnvironmentLine(outcome.line(), "" if outcome.ok else outcome.tail)
