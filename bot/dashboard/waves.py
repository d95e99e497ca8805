"""The task page's tree of waves and subtasks (docs/design.md §8), drawn as text:

    Wave 1 (test): ✓ done
      ├── ✓ [test] 1a Write User model tests
      └── ✓ [test] 1b Write Post model tests
    Wave 2 (impl): ● running, 1 of 2 subtasks done
      ├── ✓ [impl] 2a Implement User model
      └── ● [impl] 2b Implement Post model (running)
    Wave 3 (test): ○ pending

The stored walk says what the controller knows; while a wave runs, its subtasks' live
status comes from the wave's board in Redis (a subtask ends before the join records it).
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.dashboard.model import SubtaskView, WalkView, WaveView

MARKS = {"completed": "✓", "running": "●", "retrying": "●", "failed": "✗", "pending": "○"}
LIVE = {"completed": "completed", "failed": "failed", "budget": "failed", "running": "running"}


def _label(item: SubtaskView) -> str:
    kind = f"[{item.kind}] " if item.kind else ""
    return f"{kind}{item.id} {item.title}".strip()


def _kinds(wave: WaveView) -> str:
    kinds = list(dict.fromkeys(s.kind for s in wave.subtasks if s.kind))
    return f" ({', '.join(kinds)})" if kinds else ""


def _subtask_status(item: SubtaskView, live: Mapping[str, str], running: bool) -> str:
    if running and item.id in live:
        return LIVE.get(live[item.id], "pending")
    if running and item.status == "running":
        return "pending"  # launched, not started yet (no live status)
    return item.status


def _wave_line(wave: WaveView, statuses: list[str], walk: WalkView) -> str:
    mark = MARKS.get(wave.status, "○")
    head = f"Wave {wave.number}{_kinds(wave)}: {mark}"
    if wave.status == "completed":
        retried = f" after {wave.attempt} attempts" if wave.attempt > 1 else ""
        return f"{head} done{retried}" + (f", commit {wave.commit[:12]}" if wave.commit else "")
    if wave.status in ("running", "retrying"):
        done = statuses.count("completed")
        attempt = f", attempt {wave.attempt} of {wave.max_attempts}" if wave.attempt > 1 else ""
        return f"{head} running{attempt}, {done} of {len(statuses)} subtasks done"
    if wave.status == "failed":
        return f"{head} failed after {wave.attempt} attempt(s): {wave.error}".rstrip(": ")
    return f"{head} {'not run' if walk.stopped else 'pending'}"


def tree(walk: WalkView, live: Mapping[str, str] | None = None) -> list[str]:
    """The tree's lines; ``live`` maps the running wave's subtask ids to their board status."""
    lines: list[str] = []
    for index, wave in enumerate(walk.waves):
        running = wave.status in ("running", "retrying") and index == walk.current
        statuses = [_subtask_status(s, live or {}, running) for s in wave.subtasks]
        lines.append(_wave_line(wave, statuses, walk))
        for number, (item, status) in enumerate(zip(wave.subtasks, statuses, strict=True)):
            branch = "└──" if number == len(wave.subtasks) - 1 else "├──"
            note = " (running)" if status == "running" else ""
            note = f" (failed: {item.error})" if status == "failed" and item.error else note
            lines.append(f"  {branch} {MARKS.get(status, '○')} {_label(item)}{note}")
    if walk.stopped:
        lines.append(f"Stopped: {walk.stopped}")
    return lines
