"""Redis key names shared by the web side and the workers (the contract between them)."""

from __future__ import annotations

PREFIX = "agentium"

INTAKE = f"{PREFIX}:intake"  # list of accepted deliveries, newest first
INTAKE_PROCESSING = f"{PREFIX}:intake:processing"  # being turned into RQ jobs
HANDLE_DELIVERY_JOB = "workers.jobs.handle_delivery"

DELIVERY_TTL_S = 8 * 24 * 3600  # GitHub may redeliver for days; keep ids >= 7 days


def delivery_seen(delivery_id: str) -> str:
    return f"{PREFIX}:delivery:{delivery_id}"


def delivery_handled(delivery_id: str) -> str:
    return f"{PREFIX}:delivery:{delivery_id}:handled"


def delivery_job_id(delivery_id: str) -> str:
    return f"delivery-{delivery_id}"
