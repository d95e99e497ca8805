from __future__ import annotations

import pytest

from workers.controller.plan import count_tasks, task_section

PLAN = """# Plan

Intro text.

### Task 1: Model
Add the model.
#### Details
Use pydantic.

### Task 2: Endpoint
Add the endpoint.

## Risks
None.
"""


def test_tasks_are_counted_and_extracted_without_touching_the_plan() -> None:
    original = PLAN
    assert count_tasks(PLAN) == 2
    assert task_section(PLAN, 0) == "### Task 1: Model\nAdd the model.\n#### Details\nUse pydantic."
    assert task_section(PLAN, 1) == "### Task 2: Endpoint\nAdd the endpoint."
    assert original == PLAN


def test_a_plan_without_headers_is_one_task() -> None:
    assert count_tasks("Just do it.") == 1
    assert task_section("Just do it.", 0) == "Just do it."


def test_out_of_range() -> None:
    with pytest.raises(IndexError):
        task_section(PLAN, 2)


def test_ids_with_letters_and_sections_mentioning_files() -> None:
    from workers.controller.plan import sections_mentioning

    plan = (
        "# Plan\nTouches src/app/user.py and more.\n\n### Task 1a: Tests\nFiles: tests/t.py\n\n"
        "### Task 2b: Code\nEdit user.py.\n\n## Risks\nNone for t.py.\n"
    )
    assert count_tasks(plan) == 2
    assert task_section(plan, 1) == "### Task 2b: Code\nEdit user.py."
    found = sections_mentioning(plan, ("src/app/user.py",))
    assert found == [
        "# Plan\nTouches src/app/user.py and more.",
        "### Task 2b: Code\nEdit user.py.",
    ]
    assert sections_mentioning(plan, ("src/app/user.py",), skip=task_section(plan, 1)) == found[:1]
    assert sections_mentioning(plan, ()) == []
