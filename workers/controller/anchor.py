"""The goal anchor: the task's original intent, fixed when PLAN advances (docs/design.md §9).

When the task starts, the issue's title and a digest of its body are kept
(:class:`IssueIntent`); when PLAN advances, they and the plan's goal become the
:class:`Anchor`, set once and never changed. Every replan and doctor prompt carries it as
a hard constraint (change HOW the goal is reached, never WHAT it is) and the judge sees it.
The digest names exactly which text of the issue the goal was fixed from: an issue edited
later does not move the goal of a running task.
"""

from __future__ import annotations

import hashlib
import re

from pydantic import BaseModel, ConfigDict

from workers.controller.plan import TASK_HEADER_RE

GOAL_CHARS = 600  # the plan's goal as the anchor keeps it
TITLE_CHARS = 256
DIGEST_CHARS = 16  # hex characters of the body's SHA-256 shown and kept
_GOAL_LINE = re.compile(r"^[ \t>*_-]*goal[*_]*[ \t]*:[*_ \t]*(?P<goal>\S.*)$", re.I | re.M)
_HEADING = re.compile(r"^#{1,6}[ \t]")
_MODEL = ConfigDict(frozen=True, extra="ignore")


class IssueIntent(BaseModel):
    """The issue as the task started: its title and its body's digest."""

    model_config = _MODEL

    title: str = ""
    digest: str = ""


class Anchor(BaseModel):
    """The task's intent, immutable once set: the issue's title and body digest, and the
    goal of the plan PLAN advanced with."""

    model_config = _MODEL

    title: str = ""
    digest: str = ""
    goal: str = ""

    def describe(self) -> str:
        """The anchor in two lines, for the status comment and the history."""
        title = self.title or "(untitled issue)"
        digest = f" (issue text sha256:{self.digest})" if self.digest else ""
        return f"{title}{digest}\nGoal: {self.goal or '(the plan states none)'}"


def digest(body: str) -> str:
    """The first hex characters of the SHA-256 of the issue body (UTF-8)."""
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:DIGEST_CHARS]


def intent_of(title: str, body: str) -> IssueIntent:
    return IssueIntent(title=" ".join(title.split())[:TITLE_CHARS], digest=digest(body))


def _shorten(text: str, limit: int = GOAL_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def plan_goal(plan: str) -> str:
    """The plan's goal: its ``Goal:`` line, or else its first paragraph before the tasks."""
    line = _GOAL_LINE.search(plan)
    if line:
        return _shorten(line["goal"])
    first_task = TASK_HEADER_RE.search(plan)
    head = plan[: first_task.start()] if first_task else plan
    paragraph: list[str] = []
    for raw in head.splitlines():
        text = raw.strip()
        if _HEADING.match(text) or text.startswith("```"):
            if paragraph:
                break
            continue
        if not text:
            if paragraph:
                break
            continue
        paragraph.append(text)
    return _shorten(" ".join(paragraph))


def anchor_of(intent: IssueIntent | None, plan: str) -> Anchor:
    intent = intent or IssueIntent()
    return Anchor(title=intent.title, digest=intent.digest, goal=plan_goal(plan))
