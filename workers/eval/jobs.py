"""The RQ job of ``agentium eval``: one instance, run by whichever worker takes it.

The job carries the instance as JSON, its number in the suite, the folder it runs in,
the ``--routing`` overrides and the import path of the function that builds the worker's
:class:`~workers.eval.run.Harness` from its settings (the real agents by default; the
tests name one whose sandbox also shows the test interpreter). Its result is the record
as JSON; the record is in the instance's folder too.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, ConfigDict

from config.settings import Settings, load_settings
from workers.eval.instance import Instance
from workers.eval.run import Harness, InstanceRun

DEFAULT_HARNESS = "workers.eval.run:build_harness"


class InstanceJob(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    instance: dict[str, Any]
    number: int
    folder: str
    routing: dict[str, Any] | None = None
    harness: str = DEFAULT_HARNESS


def harness_builder(path: str) -> Callable[[Settings], Harness]:
    module, _, name = path.partition(":")
    return cast(Callable[[Settings], Harness], getattr(importlib.import_module(module), name))


def run_instance_job(payload: dict[str, Any]) -> dict[str, Any]:
    """Run one instance on this worker; its record as JSON."""
    job = InstanceJob.model_validate(payload)
    harness = harness_builder(job.harness)(load_settings())
    instance = Instance.model_validate(job.instance)
    folder = Path(job.folder)
    folder.mkdir(parents=True, exist_ok=True)
    record = InstanceRun(instance, job.number, folder, harness, job.routing).run()
    return record.model_dump(mode="json")
