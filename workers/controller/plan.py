"""The plan's ``### Task <id>: <title>`` sections and their metadata (docs/design.md §8).

A task header may be followed at once by metadata lines::

    ### Task 2a: Implement the User model
    Type: impl
    Depends on: 1a
    Files: src/models/user.py, src/models/__init__.py

Sections are read when a prompt or the wave layout is built; the stored plan is never
narrowed. A plan without task headers is one task. Ids are compared in lower case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

TASK_HEADER_RE = re.compile(
    r"^###[ \t]+Task[ \t]+(?P<id>\d+[A-Za-z0-9]*)[ \t]*:[ \t]*(?P<title>.*?)[ \t]*$",
    re.MULTILINE,
)
_ANY_HEADER_RE = re.compile(r"^#{1,3}[ \t]", re.MULTILINE)
_META_RE = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?(?P<key>type|depends[ \t]+on|files)(?:\*\*|__)?"
    r"[ \t]*:[ \t]*(?:\*\*|__)?[ \t]*(?P<value>.*?)[ \t]*$",
    re.IGNORECASE,
)
_ID_RE = re.compile(r"^\d+[a-z0-9]*$")
_NO_DEPENDENCIES = frozenset({"", "none", "-", "—", "nothing", "n/a", "no"})
_FILLER = frozenset({"task", "tasks", "and", "&"})


class SubtaskType(StrEnum):
    TEST = "test"
    IMPL = "impl"
    REFACTOR = "refactor"


_TYPE_NAMES = {
    "test": SubtaskType.TEST,
    "tests": SubtaskType.TEST,
    "impl": SubtaskType.IMPL,
    "implementation": SubtaskType.IMPL,
    "refactor": SubtaskType.REFACTOR,
}


@dataclass(frozen=True)
class PlanTask:
    """One task of the plan. ``depends_on`` is None when the task has no ``Depends on:``
    line (the plan's default then applies, see :func:`workers.controller.plan_check`);
    ``problems`` are metadata lines that could not be read."""

    id: str
    title: str
    kind: SubtaskType | None = None
    depends_on: tuple[str, ...] | None = None
    files: tuple[str, ...] = ()
    description: str = ""
    problems: tuple[str, ...] = ()

    def label(self) -> str:
        kind = f"[{self.kind}] " if self.kind else ""
        return f"{kind}{self.id} {self.title}".strip()


def count_tasks(plan: str) -> int:
    """The number of task sections; 1 when there are none."""
    return max(1, len(TASK_HEADER_RE.findall(plan)))


def _section_bounds(plan: str) -> list[tuple[int, int]]:
    bounds = []
    for match in TASK_HEADER_RE.finditer(plan):
        after = _ANY_HEADER_RE.search(plan, match.start() + 1)
        bounds.append((match.start(), after.start() if after else len(plan)))
    return bounds


def task_section(plan: str, index: int) -> str:
    """Section ``index`` (0-based) up to the next header of level 1-3; the plan if no tasks."""
    bounds = _section_bounds(plan)
    if not bounds:
        return plan
    if not 0 <= index < len(bounds):
        raise IndexError(f"task index {index} out of range: the plan has {len(bounds)} tasks")
    begin, end = bounds[index]
    return plan[begin:end].strip()


def _clean(value: str) -> str:
    return value.replace("`", "").replace("**", "").strip()


def _dependencies(value: str, task: str) -> tuple[tuple[str, ...], list[str]]:
    text = _clean(value).lower().rstrip(".")
    if text in _NO_DEPENDENCIES:
        return (), []
    found: list[str] = []
    problems: list[str] = []
    for token in re.split(r"[,;\s]+", text):
        token = token.strip("#()[]")
        if not token or token in _FILLER:
            continue
        if _ID_RE.match(token):
            found.append(token)
        else:
            problems.append(f"Task {task}: `Depends on:` names {token!r}, which is not a task id")
    return tuple(dict.fromkeys(found)), problems


def _files(value: str) -> tuple[str, ...]:
    text = _clean(value)
    parts = text.split(",") if "," in text else text.split()
    return tuple(dict.fromkeys(p.strip() for p in parts if p.strip() and p.strip() != "-"))


def _kind(value: str, task: str) -> tuple[SubtaskType | None, list[str]]:
    name = _clean(value).lower().rstrip(".")
    if name in _TYPE_NAMES:
        return _TYPE_NAMES[name], []
    return None, [f"Task {task}: `Type: {_clean(value)}` is not one of test, impl, refactor"]


def _metadata(lines: list[str]) -> tuple[dict[str, str], int, list[str]]:
    """The metadata lines at the top of a section body: values, lines used, duplicates."""
    values: dict[str, str] = {}
    duplicates: list[str] = []
    used = 0
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        match = _META_RE.match(line)
        if match is None:
            break
        key = " ".join(match["key"].lower().split())
        if key in values:
            duplicates.append(key)
        values[key] = match["value"]
        used = number + 1
    return values, used, duplicates


def _parse_task(task_id: str, title: str, body: str) -> PlanTask:
    lines = body.splitlines()
    values, used, duplicates = _metadata(lines)
    problems = [f"Task {task_id}: `{key.title()}:` is given twice" for key in duplicates]
    kind = None
    if "type" in values:
        kind, found = _kind(values["type"], task_id)
        problems += found
    depends_on = None
    if "depends on" in values:
        depends_on, found = _dependencies(values["depends on"], task_id)
        problems += found
    files = _files(values["files"]) if "files" in values else ()
    description = "\n".join(lines[used:]).strip()
    return PlanTask(task_id, title, kind, depends_on, files, description, tuple(problems))


def plan_tasks(plan: str) -> tuple[PlanTask, ...]:
    """The plan's task sections in plan order (empty when it has no task header)."""
    tasks = []
    for match, (_, end) in zip(TASK_HEADER_RE.finditer(plan), _section_bounds(plan), strict=True):
        body = plan[match.end() : end]
        tasks.append(_parse_task(match["id"].lower(), match["title"].strip(), body))
    return tuple(tasks)


def _sections(plan: str) -> list[str]:
    starts = [m.start() for m in _ANY_HEADER_RE.finditer(plan)]
    if not starts or starts[0] != 0:
        starts = [0, *starts]
    ends = [*starts[1:], len(plan)]
    return [plan[a:b].strip() for a, b in zip(starts, ends, strict=True) if plan[a:b].strip()]


def sections_mentioning(plan: str, files: tuple[str, ...], *, skip: str = "") -> list[str]:
    """The plan's sections (header to next header of level 1-3) that name one of ``files``
    by path or, for paths with a directory, by file name; ``skip`` leaves out that section
    (the subtask's own)."""
    names = {f for f in files if f} | {f.rsplit("/", 1)[-1] for f in files if "/" in f}
    found = []
    for section in _sections(plan):
        if skip and section == skip.strip():
            continue
        if any(name in section for name in names):
            found.append(section)
    return found
