"""The plan's validator and its waves (docs/design.md §8): pure functions of the plan text.

| check                                   | kind                                          |
|-----------------------------------------|-----------------------------------------------|
| unreadable metadata (`Type: foo`, ...)  | structural error                              |
| duplicate task id                       | structural error                              |
| `Depends on:` an unknown id             | structural error                              |
| dependency cycle (a task on itself too) | structural error                              |
| an `impl` task without a `test` task in | TDD finding: an error under `tdd: required`,  |
| its dependency chain                    | shown to the plan reviewer and judge under    |
|                                         | `tdd: advisory` (the default)                 |
| a task without `Type:` (>= 2 tasks)     | TDD finding, under `tdd: required` only       |
| more than MAX_TASKS tasks               | structural error                              |

Dependencies: when no task has a `Depends on:` line, task k depends on task k-1 (the plan
runs in order); otherwise a task without the line depends on nothing. Waves are the
topological layers of the dependency graph, each in plan order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from workers.controller.plan import PlanTask, SubtaskType, plan_tasks

MAX_TASKS = 50


class TddMode(StrEnum):
    ADVISORY = "advisory"
    REQUIRED = "required"


Dependencies = Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class PlanCheck:
    """``errors`` make the PLAN iteration ITERATE without a judge; ``findings`` are shown to
    the plan reviewer and the judge."""

    tasks: tuple[PlanTask, ...]
    errors: tuple[str, ...] = ()
    findings: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.errors


def dependencies(tasks: Sequence[PlanTask]) -> dict[str, tuple[str, ...]]:
    """Each task's dependencies, with the sequential default when no task declares any."""
    sequential = all(task.depends_on is None for task in tasks)
    found: dict[str, tuple[str, ...]] = {}
    for index, task in enumerate(tasks):
        before = tasks[index - 1].id if index else task.id
        default = (before,) if sequential and before != task.id else ()
        found.setdefault(task.id, default if sequential else task.depends_on or ())
    return found


def find_cycle(graph: Dependencies) -> list[str] | None:
    """One dependency cycle as ``[a, b, ..., a]`` (known ids only), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for root in graph:
        if state.get(root):
            continue
        path: list[str] = [root]
        stack = [iter(graph[root])]
        state[root] = 1
        while stack:
            child = next(stack[-1], None)
            if child is None:
                state[path.pop()] = 2
                stack.pop()
                continue
            if child not in graph or state.get(child) == 2:
                continue
            if state.get(child) == 1:
                return [*path[path.index(child) :], child]
            state[child] = 1
            path.append(child)
            stack.append(iter(graph[child]))
    return None


def ancestors(graph: Dependencies, task: str) -> set[str]:
    """Every task ``task`` depends on, directly or not (known ids only)."""
    seen: set[str] = set()
    todo = list(graph.get(task, ()))
    while todo:
        current = todo.pop()
        if current in seen or current not in graph:
            continue
        seen.add(current)
        todo.extend(graph[current])
    return seen


def _structure(tasks: Sequence[PlanTask], graph: Dependencies) -> list[str]:
    errors = [problem for task in tasks for problem in task.problems]
    if len(tasks) > MAX_TASKS:
        errors.append(f"the plan has {len(tasks)} tasks; at most {MAX_TASKS} are run")
    seen: set[str] = set()
    for task in tasks:
        if task.id in seen:
            errors.append(f"Task {task.id}: the id is used by more than one task")
        seen.add(task.id)
    for task in tasks:
        for needed in task.depends_on or ():
            if needed not in graph:
                errors.append(f"Task {task.id}: depends on {needed}, which no task is")
    cycle = find_cycle(graph)
    if cycle is not None:
        errors.append("dependency cycle: " + " -> ".join(cycle))
    return list(dict.fromkeys(errors))


def _tdd(tasks: Sequence[PlanTask], graph: Dependencies, mode: TddMode) -> list[str]:
    kinds = {task.id: task.kind for task in tasks}
    findings = []
    for task in tasks:
        if task.kind is SubtaskType.IMPL:
            chain = ancestors(graph, task.id)
            if not any(kinds.get(other) is SubtaskType.TEST for other in chain):
                findings.append(
                    f"TDD: Task {task.id} (impl) has no test task in its dependency chain; "
                    "add a `Type: test` task it depends on"
                )
    if mode is TddMode.REQUIRED and len(tasks) > 1:
        untyped = [task.id for task in tasks if task.kind is None]
        if untyped:
            findings.append(
                f"TDD: tasks {', '.join(untyped)} have no `Type:` line (test, impl or refactor)"
            )
    return findings


def check_plan(plan: str, tdd: TddMode = TddMode.ADVISORY) -> PlanCheck:
    """Validate the plan; TDD findings are errors under ``tdd: required``."""
    tasks = plan_tasks(plan)
    graph = dependencies(tasks)
    errors = _structure(tasks, graph)
    findings = _tdd(tasks, graph, tdd) if not errors else []
    if tdd is TddMode.REQUIRED:
        return PlanCheck(tasks, tuple(errors + findings))
    return PlanCheck(tasks, tuple(errors), tuple(findings))


def layers(tasks: Sequence[PlanTask], graph: Dependencies) -> tuple[tuple[str, ...], ...]:
    """The waves: a task runs one wave after the last of its dependencies, in plan order.

    Needs a valid graph (known ids, no cycle); see :func:`wave_layout` for any plan.
    """
    level: dict[str, int] = {}
    pending = [task.id for task in tasks]
    while pending:
        ready = [t for t in pending if all(d in level for d in graph[t])]
        if not ready:
            raise ValueError("the dependency graph has a cycle")
        for task in ready:
            level[task] = 1 + max((level[d] for d in graph[task]), default=-1)
        pending = [t for t in pending if t not in level]
    count = 1 + max(level.values(), default=-1)
    return tuple(tuple(t.id for t in tasks if level[t.id] == n) for n in range(count))


def wave_layout(check: PlanCheck) -> tuple[tuple[PlanTask, ...], ...]:
    """The waves of a checked plan; an invalid plan runs its tasks one by one in plan order."""
    tasks = check.tasks
    if not check.valid:
        return tuple((task,) for task in tasks)
    by_id = {task.id: task for task in tasks}
    return tuple(tuple(by_id[i] for i in wave) for wave in layers(tasks, dependencies(tasks)))
