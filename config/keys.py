"""Every Redis key the bot uses, in one place: the contract between the web side and workers.

Nothing else builds a key string (``tests/test_layout.py`` checks): the receiver and the
dispatcher, the workers that write tasks and the dashboard that reads them all come here.
Task keys (``task_key``) are ``owner/repo#N``, lowercased.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

PREFIX = "agentium"

# -- deliveries: written by the receiver, read by the dispatcher and the workers
INTAKE = f"{PREFIX}:intake"  # list of accepted deliveries, newest first
INTAKE_PROCESSING = f"{PREFIX}:intake:processing"  # being turned into RQ jobs
HANDLE_DELIVERIES_JOB = "workers.jobs.handle_deliveries"

DELIVERY_TTL_S = 8 * 24 * 3600  # GitHub may redeliver for days; keep ids >= 7 days


def delivery_seen(delivery_id: str) -> str:
    return f"{PREFIX}:delivery:{delivery_id}"


def delivery_body(delivery_id: str) -> str:
    return f"{PREFIX}:delivery:{delivery_id}:body"


def delivery_handled(delivery_id: str) -> str:
    return f"{PREFIX}:delivery:{delivery_id}:handled"


def deliveries_job_id(delivery_ids: Sequence[str]) -> str:
    """The same batch always gets the same id; any other batch (even overlapping) another."""
    digest = hashlib.sha256("\n".join(delivery_ids).encode()).hexdigest()[:16]
    return f"deliveries-{delivery_ids[0]}-{digest}"


def redelivered(guid: str) -> str:
    """A failed delivery the reconciler asked GitHub to send again (claimed once)."""
    return f"{PREFIX}:redelivered:{guid}"


def app_slug(app_id: int) -> str:
    """The App's slug as GitHub answered ``GET /app`` (when APP_SLUG is unset)."""
    return f"{PREFIX}:app:{app_id}:slug"


def installation(installation_id: int) -> str:
    """The hash of what the App knows of an installation (action, account)."""
    return f"{PREFIX}:installation:{installation_id}"


def repo_label(repo: str) -> str:
    """A repository's own trigger label, cached by the intake."""
    return f"{PREFIX}:repo-label:{repo.lower()}"


# -- tasks: written by the workers, read as plain JSON by the dashboard and /metrics
TASK_INDEX = f"{PREFIX}:tasks"  # sorted set of task keys, score = last update (epoch seconds)
TASK_PR_INDEX = f"{PREFIX}:pr"  # hash "owner/repo#PR" -> task key
RECOVERY_COUNTS = f"{PREFIX}:recovery:counts"  # hash ladder action -> steps taken, ever


def task_record(task_key: str) -> str:
    """The task's JSON record."""
    return f"{PREFIX}:task:{task_key}"


def task_inbox(task_key: str) -> str:
    """The list of commands and reviews waiting for the task's next step."""
    return f"{PREFIX}:task:{task_key}:inbox"


def task_files(task_key: str) -> str:
    """The hash holding the task's state directory, packed (step, tar)."""
    return f"{PREFIX}:task:{task_key}:files"


def task_lease(task_key: str) -> str:
    """The lease a step holds while it works on the task (a token with a TTL, renewed)."""
    return f"{PREFIX}:lease:{task_key}"


WAVE_BOARD_TTL_S = 7 * 24 * 3600


def wave_board(task_key: str, wave: int, attempt: int) -> str:
    """The hash of one attempt of a wave: its starting commit and, per subtask, its status,
    result and patch (written by the subtask jobs, read by the join and the dashboard)."""
    return f"{PREFIX}:task:{task_key}:wave:{wave}:{attempt}"


def subtask_lease(task_key: str, wave: int, attempt: int, subtask: str) -> str:
    """The lease a subtask job holds on its subtask while it runs (a token with a TTL,
    renewed, as the task's; its board writes compare it)."""
    return f"{PREFIX}:lease:{task_key}:wave:{wave}:{attempt}:{subtask}"


def task_pr(repo: str, pr_number: int) -> str:
    """The field of ``TASK_PR_INDEX`` for one pull request."""
    return f"{repo.lower()}#{pr_number}"


def task_marks(task_key: str) -> str:
    """The hash of what the bot did on GitHub for the task (pr:url, comment:N:name, ...)."""
    return f"{PREFIX}:gh:marks:{task_key}"


# Fields of the ``task_marks`` hash that the dashboard reads too.
MARK_PR_URL = "pr:url"
MARK_NOMERGE_URL = "nomerge:url"
MARK_CHECK_SHA = "check:sha"  # the PR head the last check run was made for
MARK_COMMENT = "comment:"  # + "<issue or PR number>:<name>" -> "<comment id> <url>"


def mark_comment(number: int, name: str) -> str:
    return f"{MARK_COMMENT}{number}:{name}"


# -- GitHub: per installation and repository
def installation_token(installation_id: int) -> str:
    return f"{PREFIX}:gh:token:{installation_id}"


def installation_writes(installation_id: int) -> str:
    """When the installation's next content-creating write may go (spacing)."""
    return f"{PREFIX}:gh:writes:{installation_id}"


def repo_labels_known(repo: str) -> str:
    """The set of the bot's labels known to exist in a repository."""
    return f"{PREFIX}:gh:labels:{repo.lower()}"


# -- RQ's own keys, read by the dashboard
RQ_QUEUE_PREFIX = "rq:queue:"  # RQ's list of job ids per queue, oldest first
RQ_JOB_PREFIX = "rq:job:"  # RQ's hash per job (enqueued_at, ...)


def rq_queue(name: str) -> str:
    return f"{RQ_QUEUE_PREFIX}{name}"


def rq_job(job_id: str) -> str:
    return f"{RQ_JOB_PREFIX}{job_id}"
