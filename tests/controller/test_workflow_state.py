"""The workflow state as versioned JSON: round trips, older and newer stored versions."""

from __future__ import annotations

import json

import redis

from tests.controller.controller_support import HINT, drive
from workers.controller.core import HISTORY_KEPT, with_entry
from workers.controller.outcomes import AssessorDone, JudgeDone, ReviewerDone, WorkerDone
from workers.controller.phases import Path, Phase, Role
from workers.controller.state import SCHEMA_VERSION, HistoryEntry, WorkflowState
from workers.tasks.record import TaskRecord
from workers.tasks.store import TaskStore

PLAN = "### Task 1: a\nAGENTIUM_MEMORY: KEY_FACT uses OAuth2"


def busy_state() -> WorkflowState:
    """A state with every kind of field filled: path, memory, history, overrides, feedback,
    the recovery ladder's (a doctor's hint, failures)."""
    iterate = [ReviewerDone("r"), JudgeDone("AGENTIUM_EVAL: ITERATE more")]
    plan = [WorkerDone(PLAN), AssessorDone("AGENTIUM_EVAL: COMPLEX"), *iterate]
    plan += [WorkerDone(PLAN), *iterate, WorkerDone(PLAN), *iterate]  # PLAN 3: override
    implement = [WorkerDone("impl", made_commits=True), *iterate]
    return drive([*plan, *implement], answer_doctor=HINT).state


def test_json_round_trip_keeps_everything() -> None:
    state = busy_state()
    assert state.controller_overrode and state.memory and state.history and state.pr_open
    assert state.recovery.failures and state.recovery.hint and state.recovery.intent
    assert WorkflowState.model_validate_json(state.model_dump_json()) == state


def test_json_from_an_older_version_loads_with_defaults() -> None:
    old = {"phase": "IMPLEMENT", "iteration": 2, "path": "SIMPLE", "retired_field": [1, 2]}
    state = WorkflowState.model_validate_json(json.dumps(old))
    assert (state.phase, state.iteration, state.path) == (Phase.IMPLEMENT, 2, Path.SIMPLE)
    assert state.memory == () and state.history == () and not state.controller_overrode
    assert state.schema_version == SCHEMA_VERSION


def test_a_fresh_state_is_valid_json() -> None:
    assert WorkflowState.model_validate_json("{}") == WorkflowState()


def record(**extra: object) -> TaskRecord:
    return TaskRecord(
        repo="octo/demo", issue=7, trigger_user="octocat", trigger_delivery="d-1", **extra
    )


def test_task_record_round_trip_through_redis(redis_client: redis.Redis) -> None:
    store = TaskStore(redis_client)
    stored = record(workflow=busy_state())
    store.save(stored, lease=None)
    loaded = store.get(stored.key)
    assert loaded is not None
    assert loaded.workflow == stored.workflow
    assert loaded.workflow.history[-1].at == stored.workflow.history[-1].at


def test_stored_record_from_before_the_workflow_field_loads(redis_client: redis.Redis) -> None:
    store = TaskStore(redis_client)
    legacy = record().model_dump(mode="json")
    del legacy["workflow"]
    legacy["from_a_newer_version"] = {"x": 1}
    store.save(
        record(), lease=None
    )  # let the store write its keys, then replace the JSON with the legacy one
    key = next(k for k in map(bytes.decode, redis_client.keys("*")) if k.endswith("octo/demo#7"))
    redis_client.set(key, json.dumps(legacy))
    loaded = store.get(record().key)
    assert loaded is not None and loaded.workflow == WorkflowState()


def test_stored_workflow_from_an_older_schema_loads(redis_client: redis.Redis) -> None:
    store = TaskStore(redis_client)
    raw = record().model_dump(mode="json")
    raw["workflow"] = {"schema_version": 0, "phase": "DOCS", "iteration": 1, "unknown": True}
    store.save(record(), lease=None)
    key = next(k for k in map(bytes.decode, redis_client.keys("*")) if k.endswith("octo/demo#7"))
    redis_client.set(key, json.dumps(raw))
    loaded = store.get(record().key)
    assert loaded is not None
    assert (loaded.workflow.phase, loaded.workflow.iteration) == (Phase.DOCS, 1)
    assert loaded.workflow.schema_version == 0


def test_history_keeps_the_newest_entries_and_counts_every_one() -> None:
    state = WorkflowState()
    entries = [
        HistoryEntry(phase=Phase.IMPLEMENT, iteration=i, role=Role.JUDGE, summary=f"#{i}")
        for i in range(HISTORY_KEPT + 5)
    ]
    for entry in entries[:HISTORY_KEPT]:
        state = with_entry(state, entry)
    before = state
    for entry in entries[HISTORY_KEPT:]:
        state = with_entry(state, entry)
    assert len(state.history) == HISTORY_KEPT
    assert state.history_count == HISTORY_KEPT + 5  # names of effects stay unique
    assert state.history[0].summary == "#5" and state.history[-1].summary == f"#{HISTORY_KEPT + 4}"
    assert [e.summary for e in state.entries_since(before)] == [
        f"#{i}" for i in range(HISTORY_KEPT, HISTORY_KEPT + 5)
    ]
