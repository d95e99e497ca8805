"""Markdown bodies of the bot's comments and PR, each starting with a hidden marker.

The marker (``<!-- agentium:NAME -->``) is how the bot finds its own comment again: the
status comment to edit it in place, a feedback comment to know it was already posted.
Bodies are cut to GitHub's 65,536-character cap with a note and a pointer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from workers.controller import gate
from workers.controller.phases import Phase
from workers.controller.state import Override, WorkflowState
from workers.controller.wavestate import RunStatus, WaveState, WaveWalk
from workers.github.ladder_bodies import override_lines, question_lines, recovery_row

MAX_BODY_CHARS = 65_536
HISTORY_LINES = 20
LOG_CHARS = 2000
_FENCE_RE = re.compile(r"`{3,}")


@dataclass(frozen=True)
class EnvironmentLine:
    """The task's environment step, as the status comment shows it: ``line`` (ok or
    failed, seconds, what ran) and, for a failed setup, the end of its ``log``."""

    line: str
    log: str = ""


def marker(name: str) -> str:
    return f"<!-- agentium:{name} -->"


def fit(body: str, pointer: str, limit: int = MAX_BODY_CHARS) -> str:
    """``body`` if it fits, else its head plus a note saying where the full text is."""
    if len(body) <= limit:
        return body
    note = f"\n\n---\n✂️ Cut at {limit:,} characters (GitHub's limit). {pointer}\n"
    return body[: limit - len(note)] + note


def _of(state: WorkflowState) -> int:
    for entry in reversed(state.history):
        if entry.phase is state.phase and entry.of:
            return entry.of
    return 0


def status_body(
    state: WorkflowState,
    pr_url: str | None = None,
    spend: str = "",
    environment: EnvironmentLine | None = None,
) -> str:
    if state.phase.is_terminal:
        headline = f"{state.phase}" + (f": {state.end_reason}" if state.end_reason else "")
    else:
        of = _of(state)
        headline = f"{state.phase}, iteration {state.iteration}" + (f" of {of}" if of else "")
    rows = [
        ("Phase", headline),
        ("Path", state.path.value if state.path else "not assessed yet"),
        ("Pull request", pr_url or "not opened yet"),
        ("Verdicts", _verdicts(state) or "none yet"),
    ]
    if environment is not None:
        rows.append(("Environment", environment.line))
    if state.started:
        rows.append(("Quality gate", gate.status_line(state.baseline)))
    if spend:
        rows.append(("Spend", spend))
    if recovery := recovery_row(state):
        rows.append(("Recovery", recovery))
    if state.controller_overrode:
        rows.append(("NOMERGE", "; ".join(o.describe() for o in state.overrides)))
    table = "\n".join(f"| {name} | {_cell(value)} |" for name, value in rows)
    waves = wave_checklist(state)
    history = "\n".join(
        f"- {e.phase} {e.iteration}: {e.summary}" for e in state.history[-HISTORY_LINES:]
    )
    return (
        f"{marker('status')}\n### agentium status\n\n| | |\n|---|---|\n{table}\n\n{waves}"
        f"<details><summary>History</summary>\n\n{history or '- started'}\n\n</details>\n"
        f"{_setup_log(environment)}"
    )


def _setup_log(environment: EnvironmentLine | None) -> str:
    """A failed setup's log end, fenced (the log is the repository's text, not markdown)."""
    if environment is None or not environment.log.strip():
        return ""
    log = environment.log[-LOG_CHARS:]
    fence = "`" * max(3, 1 + max((len(m) for m in _FENCE_RE.findall(log)), default=0))
    return (
        "\n<details><summary>Environment setup log (its end)</summary>\n\n"
        f"{fence}text\n{log.rstrip()}\n{fence}\n\n</details>\n"
    )


def _wave_state(wave: WaveState, walk: WaveWalk) -> tuple[bool, str]:
    retry = f", attempt {wave.attempt} of {wave.max_attempts}" if wave.attempt > 1 else ""
    if wave.status is RunStatus.COMPLETED:
        return True, (f" (commit {wave.commit[:7]})" if wave.commit else " (no changes)")
    if wave.status in (RunStatus.RUNNING, RunStatus.RETRYING):
        return False, f" (running{retry})"
    if wave.status is RunStatus.FAILED:
        return False, f" (failed{retry})"
    return False, " (not run)" if walk.stopped else ""


def wave_checklist(state: WorkflowState) -> str:
    """The plan's waves as a checklist (docs/design.md §8); empty when there are none."""
    walk = state.walk
    if not walk.waves:
        return ""
    lines = ["**Plan waves** (IMPLEMENT iteration 1, each wave reviewed and judged)", ""]
    for wave in walk.waves:
        done, note = _wave_state(wave, walk)
        names = ", ".join(s.label() for s in wave.subtasks)
        lines.append(f"- [{'x' if done else ' '}] Wave {wave.number}{note}: {names}")
    if walk.stopped:
        lines += ["", f"The walk stopped: {_cell(walk.stopped)}"]
    return "\n".join(lines) + "\n\n"


def _verdicts(state: WorkflowState) -> str:
    said = [
        f"{e.phase} {e.iteration}: {e.verdict}" for e in state.history if e.verdict and not e.wave
    ]
    return " · ".join(said[-8:])


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def plan_body(name: str, plan: str) -> str:
    return f"{marker(name)}\n### Plan\n\n{plan.strip()}\n"


def feedback_body(name: str, data: Mapping[str, str]) -> str:
    phase, iteration = data.get("phase", "?"), data.get("iteration", "?")
    verdict, decision = data.get("verdict", "no verdict"), data.get("decision", "")
    lines = [
        marker(name),
        f"### {phase} iteration {iteration}: judge says {verdict}"
        + (f" → {decision}" if decision else ""),
    ]
    if data.get("feedback"):
        lines += ["", f"**Judge:** {data['feedback']}"]
    if data.get("gate"):
        lines += ["", f"**Quality gate:** {data['gate']}"]
    review = data.get("review", "").strip()
    if review:
        lines += [
            "",
            "<details open><summary>Reviewer feedback</summary>",
            "",
            review,
            "</details>",
        ]
    return "\n".join(lines) + "\n"


def event_body(name: str, kind: str, data: Mapping[str, str]) -> str:
    """BLOCKED, STOPPED, NOTHING_TO_DO and command replies."""
    reason = data.get("reason", "")
    resume = data.get("resume", "")
    titles = {
        "blocked": "### ⛔ agentium is blocked",
        "stopped": "### ⏹️ agentium stopped",
        "nothing_to_do": "### Nothing to do",
    }
    lines = [marker(name)]
    if kind == "review_reply":
        return review_reply_body(name, data)
    if kind == "question":
        return "\n".join([marker(name), *question_lines(data)]) + "\n"
    if kind in titles:
        lines += [titles[kind], "", reason]
        if resume:
            lines += ["", f"Comment `{resume}` to resume where it stopped."]
    else:
        lines.append(data.get("text", ""))
    return "\n".join(lines) + "\n"


_RESULTS = {
    "ready": "the PR is ready for review again",
    "nomerge": "the PR stays a draft (NOMERGE: see the comment below)",
    "blocked": "the task is blocked",
}


def review_reply_body(name: str, data: Mapping[str, str]) -> str:
    """The one answer to a human review round: what was done and how it ended."""
    reviewers = ", ".join(f"@{u.strip()}" for u in data.get("user", "").split(",") if u.strip())
    pushed = "pushed new commits" if data.get("commits") == "true" else "pushed no new commits"
    result = _RESULTS.get(data.get("result", ""), data.get("result", ""))
    lines = [
        marker(name),
        f"### Review round {data.get('round', '?')}: done",
        "",
        f"Thanks {reviewers or 'for the review'}: agentium addressed the review "
        f"({data.get('reviews', '')}), {pushed}, and {result}.",
        "",
        data.get("summary", ""),
    ]
    if data.get("reason"):
        lines += ["", f"Reason: {data['reason']}"]
    return "\n".join(lines) + "\n"


def nomerge_body(name: str, reason: str, overrides: tuple[Override, ...]) -> str:
    items = "\n".join(line for o in overrides for line in override_lines(o))
    return (
        f"{marker(name)}\n### ⚠️ NOMERGE: this PR stays a draft\n\n"
        "The controller advanced without the judge's approval, so a human must review "
        f"before merging.\n\n{items or '- ' + reason}\n"
    )


def refusal_body(name: str, user: str) -> str:
    return (
        f"{marker(name)}\nHi @{user}, thanks! Only people with write, maintain or admin "
        "permission on this repository can start agentium or send it commands and reviews, "
        "so I have not done anything. A maintainer can start it for you.\n"
    )


def pr_body(issue: int, state: WorkflowState, note: str = "") -> str:
    plan = (state.plan or "").strip()
    summary = plan if len(plan) <= 4000 else plan[:4000] + "\n\n… (the full plan is on the issue)"
    parts = [marker("pr"), f"Fixes #{issue}"]
    if note:
        parts += ["", f"> {note}"]
    parts += ["", "## Plan", "", summary or "_(no plan text)_", "", "## Progress", ""]
    parts += [_progress(state, phase) for phase in (Phase.PLAN, Phase.IMPLEMENT, Phase.DOCS)]
    done = state.phase is Phase.COMPLETE
    parts.append(f"- [{'x' if done else ' '}] Finalised ({state.pr_result if done else 'pending'})")
    return "\n".join(parts) + "\n"


def _progress(state: WorkflowState, phase: Phase) -> str:
    order = (Phase.PLAN, Phase.IMPLEMENT, Phase.DOCS, Phase.COMPLETE)
    count = state.iterations.get(phase, 0)
    current = state.phase if state.phase in order else None
    finished = current is not None and order.index(current) > order.index(phase)
    if finished:
        return f"- [x] {phase}: {count} iteration(s)"
    if state.phase is phase:
        return f"- [ ] {phase}: iteration {state.iteration} running"
    return f"- [ ] {phase}" + (f": stopped after {count} iteration(s)" if count else "")
