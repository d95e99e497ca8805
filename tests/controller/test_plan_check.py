"""The plan validator and the wave layout (docs/design.md §8): tables and properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workers.controller.plan import PlanTask, SubtaskType, plan_tasks
from workers.controller.plan_check import (
    MAX_TASKS,
    PlanCheck,
    TddMode,
    check_plan,
    dependencies,
    find_cycle,
    layers,
    wave_layout,
)

SEED_PLAN = """# Plan: users and posts

### Task 1a: Write User model tests
Type: test
Depends on: none
Files: tests/test_user.py

### Task 1b: Write Post model tests
Type: test
Depends on: none
Files: tests/test_post.py

### Task 2a: Implement User model
Type: impl
Depends on: 1a
Files: src/user.py

### Task 2b: Implement Post model
Type: impl
Depends on: 1b
Files: src/post.py

### Task 3a: Write API endpoint tests
Type: test
Depends on: 2a, 2b
Files: tests/test_api.py

### Task 3b: Write CLI command tests
Type: test
Depends on: 2a, 2b
Files: tests/test_cli.py

### Task 4a: Implement API endpoints
Type: impl
Depends on: 3a
Files: src/api.py

### Task 4b: Implement CLI commands
Type: impl
Depends on: 3b
Files: src/cli.py

### Task 5: Write integration tests
Type: test
Depends on: 4a, 4b
Files: tests/test_integration.py
"""


def task(
    id: str, kind: str | None = None, deps: tuple[str, ...] | None = None, title: str = ""
) -> str:
    lines = [f"### Task {id}: {title or 'do ' + id}"]
    if kind:
        lines.append(f"Type: {kind}")
    if deps is not None:
        lines.append(f"Depends on: {', '.join(deps) or 'none'}")
    lines.append(f"Work on {id}.")
    return "\n".join(lines) + "\n\n"


def ids(check: PlanCheck) -> list[list[str]]:
    return [[t.id for t in wave] for wave in wave_layout(check)]


def test_the_seeds_nine_subtasks_make_five_waves() -> None:
    check = check_plan(SEED_PLAN, TddMode.REQUIRED)
    assert check.valid and check.findings == ()
    assert ids(check) == [["1a", "1b"], ["2a", "2b"], ["3a", "3b"], ["4a", "4b"], ["5"]]
    first = check.tasks[0]
    assert first == PlanTask(
        "1a", "Write User model tests", SubtaskType.TEST, (), ("tests/test_user.py",), ""
    )


def test_metadata_forms_models_write() -> None:
    plan = (
        "### Task 1: Tests\n- **Type:** Tests\n**Depends on**: None\n"
        "Files: `a.py`, `tests/b.py`\n\nWrite them.\n\n"
        "### Task 2A: Code\n\nType: implementation\nDepends on: Task 1\nFiles: a.py b.py\nCode."
    )
    first, second = plan_tasks(plan)
    assert (first.kind, first.depends_on, first.files) == (
        SubtaskType.TEST,
        (),
        ("a.py", "tests/b.py"),
    )
    assert first.description == "Write them."
    assert (second.id, second.kind, second.depends_on) == ("2a", SubtaskType.IMPL, ("1",))
    assert second.files == ("a.py", "b.py") and second.description == "Code."


def test_metadata_only_right_under_the_header() -> None:
    (only,) = plan_tasks("### Task 1: X\nFirst a sentence.\nType: impl\n")
    assert only.kind is None and only.depends_on is None
    assert only.description == "First a sentence.\nType: impl"


CASES = [
    # (plan, tdd, errors contain, findings contain, waves)
    (task("1") + task("2") + task("3"), "advisory", [], [], [["1"], ["2"], ["3"]]),
    (
        task("1", deps=()) + task("2") + task("3", deps=("1",)),
        "advisory",
        [],
        [],
        [["1", "2"], ["3"]],
    ),
    (
        task("1") + task("1"),
        "advisory",
        ["Task 1: the id is used by more than one task"],
        [],
        [["1"], ["1"]],
    ),
    (task("1", deps=("9",)), "advisory", ["Task 1: depends on 9, which no task is"], [], [["1"]]),
    (
        task("1", deps=("2",)) + task("2", deps=("1",)),
        "advisory",
        ["dependency cycle: 1 -> 2 -> 1"],
        [],
        [["1"], ["2"]],
    ),
    (task("1", deps=("1",)), "advisory", ["dependency cycle: 1 -> 1"], [], [["1"]]),
    (
        task("1", "feature"),
        "advisory",
        ["Task 1: `Type: feature` is not one of test, impl, refactor"],
        [],
        [["1"]],
    ),
    (
        task("1", deps=("x!",)),
        "advisory",
        ["Task 1: `Depends on:` names 'x!', which is not a task id"],
        [],
        [["1"]],
    ),
    (
        task("1", "impl") + task("2", "test"),
        "advisory",
        [],
        ["TDD: Task 1 (impl) has no test task"],
        [["1"], ["2"]],
    ),
    (
        task("1", "impl") + task("2", "test"),
        "required",
        ["TDD: Task 1 (impl) has no test task"],
        [],
        [["1"], ["2"]],
    ),
    (task("1", "test") + task("2", "impl"), "required", [], [], [["1"], ["2"]]),
    (
        task("1", "test", ()) + task("2", "impl", ()),
        "advisory",
        [],
        ["TDD: Task 2 (impl)"],
        [["1", "2"]],
    ),
    (
        task("1", "test", ()) + task("2", "refactor", ("1",)) + task("3", "impl", ("2",)),
        "required",
        [],
        [],
        [["1"], ["2"], ["3"]],
    ),
    (
        task("1") + task("2", "impl"),
        "required",
        ["TDD: Task 2 (impl)", "TDD: tasks 1 have no `Type:`"],
        [],
        [["1"], ["2"]],
    ),
    (task("1"), "required", [], [], [["1"]]),
    ("Just do it, no tasks.", "required", [], [], []),
]


@pytest.mark.parametrize(("plan", "tdd", "errors", "findings", "waves"), CASES)
def test_validator_table(
    plan: str, tdd: str, errors: list[str], findings: list[str], waves: list[list[str]]
) -> None:
    check = check_plan(plan, TddMode(tdd))
    for expected, got in ((errors, check.errors), (findings, check.findings)):
        assert len(got) == len(expected), got
        for part, line in zip(expected, got, strict=True):
            assert part in line
    assert ids(check) == waves


def test_too_many_tasks_is_an_error() -> None:
    plan = "".join(task(str(n)) for n in range(1, MAX_TASKS + 2))
    assert any("at most" in e for e in check_plan(plan).errors)


def test_the_plan_is_never_changed() -> None:
    before = str(SEED_PLAN)
    check_plan(SEED_PLAN)
    assert before == SEED_PLAN


# properties over random DAGs


@st.composite
def dags(draw: st.DrawFn) -> tuple[list[str], dict[str, tuple[str, ...]]]:
    """Random acyclic graphs: each task may depend on tasks made before it; shuffled."""
    count = draw(st.integers(1, 12))
    names = [f"{n + 1}{draw(st.sampled_from(['', 'a', 'b']))}" for n in range(count)]
    graph: dict[str, tuple[str, ...]] = {}
    for index, name in enumerate(names):
        earlier = names[:index]
        chosen = draw(st.lists(st.sampled_from(earlier), unique=True)) if earlier else []
        graph[name] = tuple(chosen)
    order = draw(st.permutations(names))
    return list(order), graph


def render(order: list[str], graph: dict[str, tuple[str, ...]]) -> str:
    return "# Plan\n\n" + "".join(task(name, deps=graph[name]) for name in order)


@settings(max_examples=200, deadline=None)
@given(dags())
def test_waves_respect_every_dependency(dag: tuple[list[str], dict[str, tuple[str, ...]]]) -> None:
    order, graph = dag
    check = check_plan(render(order, graph))
    assert check.valid, check.errors
    waves = ids(check)
    wave_of = {name: n for n, wave in enumerate(waves) for name in wave}
    assert sorted(wave_of) == sorted(order)  # every task exactly once
    assert sum(len(w) for w in waves) == len(order)
    for name, needs in graph.items():
        assert all(wave_of[d] < wave_of[name] for d in needs)
        # as early as possible: one wave after its last dependency
        assert wave_of[name] == 1 + max((wave_of[d] for d in needs), default=-1)
    for wave in waves:  # plan order inside a wave
        assert wave == [name for name in order if name in wave]


@settings(max_examples=200, deadline=None)
@given(dags(), st.data())
def test_a_back_edge_is_always_a_cycle(
    dag: tuple[list[str], dict[str, tuple[str, ...]]], data: st.DataObject
) -> None:
    order, graph = dag
    edges = [(a, b) for a, needs in graph.items() for b in needs]
    if not edges:
        return
    a, b = data.draw(st.sampled_from(edges))
    graph = {**graph, b: (*graph[b], a)}  # b now needs a, which needs b
    check = check_plan(render(order, graph))
    assert any(e.startswith("dependency cycle") for e in check.errors)
    cycle = find_cycle(dependencies(check.tasks))
    assert cycle is not None and cycle[0] == cycle[-1]
    assert all(cycle[i + 1] in graph[cycle[i]] for i in range(len(cycle) - 1))
    assert [len(w) for w in wave_layout(check)] == [1] * len(order)  # sequential fallback


def test_layers_refuse_a_cycle() -> None:
    tasks = plan_tasks(task("1", deps=("2",)) + task("2", deps=("1",)))
    with pytest.raises(ValueError, match="cycle"):
        layers(tasks, dependencies(tasks))
