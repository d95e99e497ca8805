"""The wave walk's files in the task's state directory (docs/design.md §8).

STATE/waves/wave-N/summary.md              rule-based summary with restoration references
STATE/waves/wave-N/attempt-A/<id>.md       subtask <id>'s report on attempt A
STATE/waves/wave-N/attempt-A/feedback.md   the review and judge line that failed attempt A
STATE/waves/wave-N/attempt-A/judge.md      the wave judge's answer on attempt A

Written by the join and the wave review (which hold the task's lease), read by later
subtasks (their summaries), the wave reviewer (the reports) and the reviewer of the whole
change (every summary).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from workers.agents.atomic import write_atomically
from workers.controller.state import Feedback
from workers.controller.wavestate import WaveState

_SAFE_ID = re.compile(r"[^a-z0-9]")
TEST_FILE = re.compile(r"(^|/)(tests?|spec)(/|_)|(_test|_spec|\.test|\.spec)\.[a-z]+$|test_")


def wave_dir(root: Path, wave: int) -> Path:
    return root / "waves" / f"wave-{wave}"


def attempt_dir(root: Path, wave: int, attempt: int) -> Path:
    return wave_dir(root, wave) / f"attempt-{attempt}"


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""


def is_test_file(path: str) -> bool:
    return bool(TEST_FILE.search(path.lower()))


def render_summary(wave: WaveState, files: Sequence[str], start: str, commit: str) -> str:
    """The wave's summary: subtasks and their types, files, test files, restoration refs."""
    done = "\n".join(f"- {s.label()}" for s in wave.subtasks)
    tests = [f for f in files if is_test_file(f)]
    head = commit or start
    return (
        f"## Wave {wave.number} summary\n\n**Completed subtasks:**\n{done}\n\n"
        f"**Files changed:** {', '.join(files) if files else 'none'}\n"
        f"**Test files:** {', '.join(tests) if tests else 'none'}\n\n"
        "**Restoration references:**\n"
        f"- Full diff: `git diff {start[:12]}..{head[:12]}`\n"
        f"- Commit: `git show {head[:12]}`" + ("" if commit else " (the wave changed nothing)")
    )


def write_summary(root: Path, wave: int, text: str) -> Path:
    return write_atomically(wave_dir(root, wave) / "summary.md", text.strip() + "\n")


def summaries(root: Path, before: int) -> list[str]:
    """The summaries of waves 1 .. before-1 that were joined, in order."""
    found = [_read(wave_dir(root, n) / "summary.md").strip() for n in range(1, before)]
    return [text for text in found if text]


def write_report(root: Path, wave: int, attempt: int, subtask: str, text: str) -> Path:
    name = _SAFE_ID.sub("_", subtask.lower()) + ".md"
    return write_atomically(attempt_dir(root, wave, attempt) / name, text.strip() + "\n")


def reports(root: Path, wave: WaveState) -> str:
    """The subtasks' reports of the wave's latest attempt, each under its label."""
    folder = attempt_dir(root, wave.number, max(1, wave.attempt))
    parts = []
    for item in wave.subtasks:
        text = _read(folder / (_SAFE_ID.sub("_", item.id) + ".md")).strip()
        parts.append(f"### Subtask {item.label()}\n\n{text or '(no report)'}")
    return "\n\n".join(parts)


def write_feedback(root: Path, wave: int, attempt: int, feedback: Feedback) -> Path:
    text = f"# Wave {wave}, attempt {attempt}: why it was retried\n\n## Review\n\n"
    text += f"{feedback.review}\n\n## Judge\n\n{feedback.judge}\n"
    return write_atomically(attempt_dir(root, wave, attempt) / "feedback.md", text)


def feedback_path(root: Path, wave: int, attempt: int) -> Path:
    return attempt_dir(root, wave, attempt) / "feedback.md"


def feedback_text(root: Path, wave: int, attempt: int) -> str:
    """What ``write_feedback`` kept for that attempt (empty when it was not retried)."""
    return _read(feedback_path(root, wave, attempt))


def record_judge(root: Path, wave: int, attempt: int, text: str) -> Path:
    return write_atomically(attempt_dir(root, wave, attempt) / "judge.md", text)
