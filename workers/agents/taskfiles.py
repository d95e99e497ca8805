"""The task's state directory (outside the checkout): what the prompts offload to files.

STATE/plan.md                       the plan, referenced by path in worker prompts
STATE/repo-map.txt                  the repository map, built once (see repomap.py)
STATE/scratch/                      the agents' scratch directory: never committed, never
                                    packed with the state (it may hold anything), bound
                                    read-write into the sandbox; it lasts while the task
                                    stays on one worker
STATE/spend.json                    the task's spend (see budget.py)
STATE/sessions/<name>.json          conversations to continue (SIMPLE worker, judge)
STATE/phases/<PHASE>/summary.json   pre/post commit SHAs, iterations, files changed
STATE/phases/<PHASE>/summary.md     the same, as the prompts show it
STATE/phases/<PHASE>/feedback-N.md  reviewer + judge feedback on iteration N
STATE/phases/<PHASE>/judge-N.md     the judge's own answer on iteration N
STATE/phases/<PHASE>/worker-N.md    the worker's reports of iteration N
STATE/phases/<PHASE>/tests-N.md     the test command's result the reviewer saw, in one line
STATE/phases/<PHASE>/tests-N.json   the same run as figures and failing test ids (TestRun)
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, TypeAdapter, ValidationError

from workers.agents import repomap
from workers.agents.atomic import write_atomically
from workers.agents.llm import Message
from workers.controller.phases import Phase
from workers.controller.state import Feedback
from workers.controller.testrun import TestRun

_MESSAGES = TypeAdapter(tuple[Message, ...])
_NUMBERED_RE = re.compile(r"-(\d+)\.md$")
SCRATCH = "scratch"


class PhaseSummary(BaseModel):
    phase: Phase
    pre: str
    post: str = ""
    iterations: list[int] = []
    files: list[str] = []

    def render(self, where: Path) -> str:
        post = self.post or self.pre
        changed = ", ".join(self.files) if self.files else "none"
        done = ", ".join(str(i) for i in self.iterations) or "none"
        return (
            f"### {self.phase}\n"
            f"- iterations with commits: {done}\n"
            f"- files changed: {changed}\n"
            f"- restoration: `git diff {self.pre[:12]}..{post[:12]}`, `git show {post[:12]}`\n"
            f"- summary file: `{where}`"
        )


class TaskFiles:
    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def plan_path(self) -> Path:
        return self.root / "plan.md"

    @property
    def spend_path(self) -> Path:
        return self.root / "spend.json"

    @property
    def scratch_dir(self) -> Path:
        return self.root / SCRATCH

    def scratch(self) -> Path:
        """The scratch directory, created when missing."""
        self.scratch_dir.mkdir(parents=True, exist_ok=True)
        return self.scratch_dir

    def phase_dir(self, phase: Phase) -> Path:
        return self.root / "phases" / phase.value

    def write_plan(self, plan: str) -> Path:
        current = self.plan_path.read_text(encoding="utf-8") if self.plan_path.exists() else None
        return self.plan_path if current == plan else write_atomically(self.plan_path, plan)

    def write_feedback(self, phase: Phase, iteration: int, feedback: Feedback) -> Path:
        text = f"# Feedback on {phase} iteration {iteration}\n\n## Reviewer\n\n{feedback.review}"
        text += f"\n\n## Judge\n\n{feedback.judge}\n"
        if feedback.broken:
            listed = "\n".join(f"- {test}" for test in feedback.broken)
            text += f"\n## Tests that passed on the base commit and failed\n\n{listed}\n"
        return write_atomically(self.phase_dir(phase) / f"feedback-{iteration}.md", text)

    def feedback(self, phase: Phase, iteration: int) -> str:
        """The feedback the worker got on ``iteration`` (empty when there was none)."""
        path = self.phase_dir(phase) / f"feedback-{iteration}.md"
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def numbered(self, phase: Phase, kind: str) -> list[tuple[int, Path]]:
        """``kind-N.md`` files of ``phase``, by iteration."""
        found = []
        for path in self.phase_dir(phase).glob(f"{kind}-*.md"):
            match = _NUMBERED_RE.search(path.name)
            if match:
                found.append((int(match[1]), path))
        return sorted(found)

    def record_judge(self, phase: Phase, iteration: int, text: str) -> None:
        write_atomically(self.phase_dir(phase) / f"judge-{iteration}.md", text)

    def judge_texts(self, phase: Phase, before: int) -> list[tuple[int, str]]:
        return [
            (n, path.read_text(encoding="utf-8"))
            for n, path in self.numbered(phase, "judge")
            if n < before
        ]

    def record_tests(self, phase: Phase, iteration: int, line: str, run: TestRun | None) -> None:
        """``run`` None: no test command ran (an earlier round's run of the iteration goes)."""
        write_atomically(self.phase_dir(phase) / f"tests-{iteration}.md", line.strip() + "\n")
        found = self.phase_dir(phase) / f"tests-{iteration}.json"
        if run is None:
            found.unlink(missing_ok=True)
        else:
            write_atomically(found, run.model_dump_json())

    def test_run(self, phase: Phase, iteration: int) -> TestRun | None:
        """The run the reviewer of ``iteration`` saw; None when it ran none."""
        path = self.phase_dir(phase) / f"tests-{iteration}.json"
        try:
            return TestRun.model_validate_json(path.read_bytes())
        except (FileNotFoundError, ValidationError):
            return None

    def tests_seen(self, phase: Phase, iteration: int) -> str:
        path = self.phase_dir(phase) / f"tests-{iteration}.md"
        return path.read_text(encoding="utf-8").strip() if path.exists() else ""

    def add_worker_report(self, phase: Phase, iteration: int, text: str, *, fresh: bool) -> None:
        path = self.phase_dir(phase) / f"worker-{iteration}.md"
        earlier = "" if fresh or not path.exists() else path.read_text(encoding="utf-8")
        write_atomically(path, f"{earlier}\n\n{text}".strip() + "\n")

    def worker_report(self, phase: Phase, iteration: int) -> str:
        path = self.phase_dir(phase) / f"worker-{iteration}.md"
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def save_session(self, name: str, messages: tuple[Message, ...]) -> None:
        write_atomically(
            self.root / "sessions" / f"{name}.json", _MESSAGES.dump_json(messages).decode()
        )

    def load_session(self, name: str) -> tuple[Message, ...] | None:
        path = self.root / "sessions" / f"{name}.json"
        try:
            return _MESSAGES.validate_json(path.read_bytes())
        except FileNotFoundError:
            return None
        except ValidationError:
            return None

    def summary(self, phase: Phase) -> PhaseSummary | None:
        path = self.phase_dir(phase) / "summary.json"
        try:
            return PhaseSummary.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            return None

    def save_summary(self, summary: PhaseSummary) -> None:
        folder = self.phase_dir(summary.phase)
        write_atomically(folder / "summary.json", summary.model_dump_json())
        write_atomically(folder / "summary.md", summary.render(folder / "summary.md") + "\n")

    def start_phase(self, phase: Phase, head: str) -> PhaseSummary:
        """The phase's summary, created with ``head`` as its pre-phase commit if new."""
        summary = self.summary(phase)
        if summary is None:
            summary = PhaseSummary(phase=phase, pre=head)
            self.save_summary(summary)
        return summary

    def repo_map(self, checkout: Path, budget: int) -> str:
        """The checkout's map when the task started, built once and kept (stable)."""
        path = self.root / "repo-map.txt"
        if path.exists():
            return path.read_text(encoding="utf-8")
        return write_atomically(path, repomap.build(checkout, budget)).read_text(encoding="utf-8")
