"""RQ jobs: the workers' composition root, where real clients are built.

The web side enqueues `handle_deliveries` by import string (config.keys).
"""

from __future__ import annotations

import functools
from dataclasses import replace
from datetime import timedelta
from typing import Any

from redis import Redis
from rq import Queue, get_current_job

from config.defaults import load_bot_defaults
from config.settings import Settings, load_settings
from workers.engine import scheduling, subtasks
from workers.engine.repo_settings import trigger_label_of
from workers.engine.stepjob import advance
from workers.engine.wavestep import WaveJobs
from workers.intake import deliveries
from workers.intake.apply import Schedule
from workers.intake.deliveries import read_metas
from workers.intake.intents import Rules
from workers.intake.repo_labels import RepoLabels
from workers.runtime import Runtime, build_runtime
from workers.tasks.store import TaskStore


@functools.cache
def settings() -> Settings:
    """This process's settings, read once."""
    return load_settings()


@functools.cache
def rules() -> Rules:
    """The trigger rules for this process, read once from the settings and defaults; the
    bot's login comes from the runtime, which asks GitHub for the slug when unset."""
    defaults = load_bot_defaults()
    rt = _app_runtime()
    login = rt.settings.bot_login if rt is not None else settings().bot_login
    return Rules(defaults.trigger_label, login, defaults.commands)


@functools.cache
def runtime() -> Runtime:
    """GitHub, Anthropic and the sandbox, built once per worker process.

    `agentium worker` builds it before it starts taking jobs, so every forked work-horse
    inherits it instead of building it again.
    """
    config = settings()
    config.require("redis_url")
    return build_runtime(config, Redis.from_url(str(config.redis_url)))


def rules_for(rt: Runtime | None) -> Rules:
    """The trigger rules, with each repository's own label when the App can read it."""
    base = rules()
    if rt is None:
        return base
    labels = RepoLabels(rt.redis, lambda *where: trigger_label_of(rt, *where), base.trigger_label)
    return replace(base, repo_label=labels)


def _app_runtime() -> Runtime | None:
    """The runtime when this process is configured as the App (not in bare tests)."""
    return runtime() if settings().app_id is not None else None


def _connection() -> Redis:
    job = get_current_job()
    if job is None:
        raise RuntimeError("this function runs inside an RQ job")
    return job.connection


def scheduler(queue: Queue) -> Schedule:
    return lambda record, cause: scheduling.schedule_step(queue, record, cause)


def wave_jobs(queue: Queue) -> WaveJobs:
    return WaveJobs(
        launch=lambda *run: scheduling.schedule_subtask(queue, *run),
        alive=lambda *run: scheduling.subtask_job_alive(queue, *run),
    )


def run_step(key: str, rechecking: bool = False) -> str:
    """The RQ job for one step of a task (see workers.engine.stepjob)."""
    rt = runtime()
    return advance(
        rt,
        key,
        lambda record, cause: scheduling.schedule_step(rt.queue, record, cause),
        lambda busy, left: scheduling.schedule_recheck(rt.queue, busy, left),
        wave_jobs(rt.queue),
        rechecking=rechecking,
    )


def run_subtask(key: str, wave: int, attempt: int, subtask: str) -> str:
    """The RQ job for one subtask of a wave (see workers.engine.subtasks)."""
    rt = runtime()
    where = subtasks.Where(key, wave, attempt, subtask)
    return subtasks.run_subtask(rt, where, lambda *run: scheduling.schedule_join(rt.queue, *run))


def sweep() -> int:
    """The RQ job that re-enqueues stale tasks and schedules itself again."""
    redis, config = _connection(), settings()
    return scheduling.sweep(
        Queue(config.queue_name, connection=redis),
        TaskStore(redis),
        stale_after=timedelta(seconds=config.sweep_stale_after_s),
        every=timedelta(seconds=config.sweep_every_s),
    )


def handle_deliveries(metas: list[dict[str, Any]]) -> list[str]:
    """The RQ job for a batch of intake entries: each delivery decided and applied once."""
    redis = _connection()
    schedule = scheduler(Queue(settings().queue_name, connection=redis))
    return deliveries.process_batch(redis, rules_for(_app_runtime()), read_metas(metas), schedule)
