"""Carries out the controller's GitHub effects for one task; each is safe to perform twice.

>>> effects = GitHubEffects(gh, redis, TaskInfo(ref, trigger_user, run), workspace,
...                         fence=lease.check)
>>> effects.start()                               # 👀 and agentium:working, once per run
>>> effects.perform(transition.effects, transition.state)

``RunAgent`` effects are not GitHub's business and are skipped. What was already done is
remembered in :class:`~workers.github.marks.TaskMarks`, so a retried job creates no second
PR, comment, label change or check run. ``fence`` is called before every effect and again
between the push and the pull request: it raises (``LeaseLost``) once the step no longer
owns its task, so a step that lost its lease neither pushes nor posts (docs/design.md §7).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from redis import Redis

from config import keys
from workers.controller.effects import (
    CommentKind,
    Effect,
    Finish,
    MarkReady,
    OpenOrUpdatePR,
    PostComment,
    PostNomerge,
    RunAgent,
    SetLabel,
    Target,
)
from workers.controller.phases import Phase
from workers.controller.state import WorkflowState
from workers.github import bodies, checks, labels, pulls, reactions
from workers.github.client import GitHubClient
from workers.github.comments import post_once, upsert
from workers.github.marks import TaskMarks
from workers.github.refs import IssueRef
from workers.gitops.workspace import PushResult

log = logging.getLogger("agentium.github.effects")

WIP_NOTE = (
    "Draft pull requests are not available for this repository, so this PR is a normal "
    "one titled [WIP] until agentium finishes."
)


class TaskBranch(Protocol):
    """What the effects need from the git workspace."""

    @property
    def branch(self) -> str: ...

    def push(self) -> PushResult: ...

    def cleanup(self) -> None: ...


@dataclass(frozen=True)
class TaskInfo:
    ref: IssueRef  # the issue
    trigger_user: str
    run: str  # unique per run of the task (the trigger's delivery id)


class GitHubEffects:
    def __init__(
        self,
        gh: GitHubClient,
        redis: Redis,
        task: TaskInfo,
        workspace: TaskBranch,
        *,
        fence: Callable[[], None],
    ) -> None:
        self._gh = gh
        self._fence = fence
        self._redis = redis
        self._task = task
        self._ref = task.ref
        self._workspace = workspace
        self.marks = TaskMarks(redis, task.ref.key)
        self.environment: bodies.EnvironmentLine | None = None  # the status comment's row
        self.keep_checkout = False  # a push waits: the commits to push live only there
        # While set, start() and perform() hand their work to it instead of doing it now
        # (the first step runs them beside its agent call, in order; workers/engine/opening.py).
        self.defer: Callable[[Callable[[], None]], object] | None = None

    @property
    def pr_number(self) -> int | None:
        return self.marks.get_int("pr:number")

    def start(self) -> None:
        """The task starts: 👀 on the issue and the working label (once per run)."""
        if self.defer is not None:
            self.defer(self._start)
        else:
            self._start()

    def _start(self) -> None:
        done = f"started:{self._task.run}"
        if self.marks.get(done):
            return
        self._fence()
        reactions.add_eyes(self._gh, self._ref)
        self._label(labels.WORKING, present=True)
        self.marks.set(done, 1)

    def perform(self, effects: Iterable[Effect], state: WorkflowState) -> None:
        if self.defer is not None:
            given = tuple(effects)
            self.defer(lambda: self._perform(given, state))
        else:
            self._perform(effects, state)

    def _perform(self, effects: Iterable[Effect], state: WorkflowState) -> None:
        for effect in effects:
            self.perform_one(effect, state)

    def _run(self, state: WorkflowState) -> str:
        """Names comments and marks per run of the task and per human review round."""
        return f"{self._task.run}:r{state.round}" if state.round else self._task.run

    def perform_one(self, effect: Effect, state: WorkflowState) -> None:
        if not isinstance(effect, RunAgent):
            self._fence()
        match effect:
            case PostComment():
                self._comment(effect, state)
            case OpenOrUpdatePR():
                self._push_and_pr(state)
            case MarkReady():
                self._mark_ready(state)
            case PostNomerge():
                self._nomerge(effect, state)
            case SetLabel():
                self._set_label(effect)
            case Finish():
                self._finish(effect, state)
            case _:
                return  # RunAgent: the agents' business

    # comments

    def _target(self, target: Target) -> IssueRef:
        number = self.pr_number if target is Target.PR else None
        return IssueRef(self._ref.owner, self._ref.repo, number or self._ref.number)

    def _comment(self, effect: PostComment, state: WorkflowState) -> None:
        run, kind = self._run(state), effect.kind
        if kind is CommentKind.STATUS:
            pr_url = self.marks.get(keys.MARK_PR_URL)
            body = bodies.status_body(state, pr_url, environment=self.environment)
            upsert(self._gh, self._ref, "status", body, self.marks)
            return
        where = self._target(effect.target)
        if kind is CommentKind.PLAN:
            name = f"plan:{run}"
            body = bodies.plan_body(name, effect.data.get("plan", state.plan or ""))
        elif kind is CommentKind.FEEDBACK:
            name = f"feedback:{run}:{effect.data.get('phase')}:{effect.data.get('iteration')}"
            body = bodies.feedback_body(name, effect.data)
        else:
            name = f"{kind}:{run}:{effect.target}:{state.history_count}"
            body = bodies.event_body(name, kind.value, effect.data)
        post_once(self._gh, where, name, body, self.marks)

    # the pull request

    def _push_and_pr(self, state: WorkflowState) -> None:
        pushed = self._workspace.push()
        self._fence()
        number = self.pr_number or self._adopt_or_open(state, pushed)
        self._refresh_body(number, state)
        self._check_for(pushed.head_sha)

    def _adopt_or_open(self, state: WorkflowState, pushed: PushResult) -> int:
        branch = self._workspace.branch
        found = pulls.find_open(self._gh, self._ref, branch)
        wip = False
        if found is None:
            title = self._gh.rest.issues.get(self._ref.owner, self._ref.repo, self._ref.number)
            body = bodies.pr_body(self._ref.number, state)
            found, wip = pulls.open_draft(
                self._gh,
                self._ref,
                branch=branch,
                base=pushed.base_branch,
                title=title.parsed_data.title,
                body=body,
            )
            if not wip:
                self.marks.wrote("pr:body", body)
        self.marks.set("pr:node_id", found.node_id)
        self.marks.set(keys.MARK_PR_URL, found.html_url)
        self.marks.set("pr:wip", int(wip))
        self.marks.set("pr:number", found.number)
        log.info("pull request", extra={"repo": self._ref.full_name, "pr": found.number})
        return found.number

    def _refresh_body(self, number: int, state: WorkflowState) -> None:
        note = WIP_NOTE if self.marks.get("pr:wip") == "1" else ""
        body = bodies.pr_body(self._ref.number, state, note)
        if self.marks.unchanged("pr:body", body):
            return
        pulls.update_body(self._gh, self._ref, number, body)
        self.marks.wrote("pr:body", body)

    def _check_for(self, head_sha: str) -> None:
        if self.marks.get(keys.MARK_CHECK_SHA) == head_sha:
            return
        previous = self.marks.get_int("check:id")
        if previous is not None:
            checks.finish(
                self._gh,
                self._ref,
                previous,
                checks.Conclusion.NEUTRAL,
                title="Superseded",
                summary="A newer commit was pushed; its check run carries the verdict.",
            )
        summary = f"Working on #{self._ref.number}; the verdict comes when the task ends."
        check_id = checks.start(self._gh, self._ref, head_sha, summary)
        self.marks.set("check:id", check_id)
        self.marks.set(keys.MARK_CHECK_SHA, head_sha)

    def _mark_ready(self, state: WorkflowState) -> None:
        number = self.pr_number
        done = f"ready:{self._run(state)}"
        if number is None or self.marks.get(done):
            return
        if self.marks.get("pr:wip") == "1":
            pulls.drop_wip(self._gh, self._ref, pulls.get(self._gh, self._ref, number))
        else:
            info = pulls.PullInfo(number, self.marks.get("pr:node_id") or "", "", True, "")
            pulls.mark_ready(self._gh, info)
        pulls.request_review(self._gh, self._ref, number, self._task.trigger_user)
        self.marks.set(done, 1)

    def _nomerge(self, effect: PostNomerge, state: WorkflowState) -> None:
        number = self.pr_number
        if effect.redraft and number is not None and not self.marks.get(f"redraft:{state.round}"):
            pulls.convert_to_draft(self._gh, self.marks.get("pr:node_id") or "")
            self.marks.set(f"redraft:{state.round}", 1)
        name = f"nomerge:{self._run(state)}"
        body = bodies.nomerge_body(name, effect.reason, effect.overrides)
        posted = post_once(self._gh, self._target(Target.PR), name, body, self.marks)
        self.marks.set(keys.MARK_NOMERGE_URL, posted.html_url)

    # labels and the end of the task

    def _label(self, name: str, *, present: bool) -> None:
        if self.marks.get(f"label:{name}") == str(int(present)):
            return
        if present:
            labels.add_label(self._gh, self._redis, self._ref, name)
        else:
            labels.remove_label(self._gh, self._ref, name)
        self.marks.set(f"label:{name}", int(present))

    def _set_label(self, effect: SetLabel) -> None:
        self._label(effect.name, present=effect.present)
        if effect.name == labels.BLOCKED and not effect.present:  # resumed
            self._label(labels.WORKING, present=True)

    def _finish(self, effect: Finish, state: WorkflowState) -> None:
        check_id = self.marks.get_int("check:id")
        if check_id is not None and self.pr_number is not None:
            self._refresh_body(self.pr_number, state)
            self._conclude(check_id, effect.final_phase, state)
        self._label(labels.WORKING, present=False)
        if effect.final_phase is not Phase.BLOCKED:
            self._label(labels.DONE, present=True)
        if not self.keep_checkout:
            self._workspace.cleanup()

    def _conclude(self, check_id: int, final: Phase, state: WorkflowState) -> None:
        done = f"concluded:{check_id}:{final}:{state.history_count}"
        if self.marks.get(done):
            return
        if final is Phase.COMPLETE and not state.controller_overrode:
            verdict, title = checks.Conclusion.SUCCESS, "Ready for review"
            summary, url = "The judge approved every phase.", None
        elif final is Phase.COMPLETE:
            verdict, title = checks.Conclusion.ACTION_REQUIRED, "NOMERGE: a human must review"
            summary = "; ".join(o.describe() for o in state.overrides)
            url = self.marks.get(keys.MARK_NOMERGE_URL)
        else:
            verdict, title = checks.Conclusion.FAILURE, "Blocked"
            summary, url = state.end_reason or "the task is blocked", None
        checks.finish(
            self._gh, self._ref, check_id, verdict, title=title, summary=summary, details_url=url
        )
        self.marks.set(done, 1)
