"""The plan's ``### Task N:`` sections, extracted at prompt-building time.

The stored plan is never narrowed; a plan without task headers is one task.
"""

from __future__ import annotations

import re

TASK_HEADER_RE = re.compile(r"^###[ \t]+Task[ \t]+\d+[ \t]*:", re.MULTILINE)
_ANY_HEADER_RE = re.compile(r"^#{1,3}[ \t]", re.MULTILINE)


def count_tasks(plan: str) -> int:
    """The number of ``### Task N:`` sections; 1 when there are none."""
    return max(1, len(TASK_HEADER_RE.findall(plan)))


def task_section(plan: str, index: int) -> str:
    """Section ``index`` (0-based) up to the next header of level 1-3; the plan if no tasks."""
    starts = [m.start() for m in TASK_HEADER_RE.finditer(plan)]
    if not starts:
        return plan
    if not 0 <= index < len(starts):
        raise IndexError(f"task index {index} out of range: the plan has {len(starts)} tasks")
    begin = starts[index]
    after = _ANY_HEADER_RE.search(plan, begin + 1)
    end = after.start() if after else len(plan)
    return plan[begin:end].strip()
