"""Turn a RunAgent effect into the controller's next outcome.

    runner = AgentRunner(AgentDeps(adapters={"anthropic": adapter}, routing=routing,
                                   sandbox=sandbox, prompts=Prompts(), settings=settings,
                                   clock=time.monotonic))
    outcome = runner.run(effect, task_context, LocalGit(checkout, git, author=..., email=...))

The runner builds the prompt, runs the tool loop, and reports: the worker's own final text
and whether the checkout changed (it commits the changes through the :class:`Checkout`
seam, never the model), the reviewer's feedback, the judge's or assessor's answer. Model
errors after the adapter's retries become ``AgentFailed`` with the reason (the controller
pauses the task BLOCKED, resumable with /agentium retry); an exhausted task budget becomes
``BudgetExceeded`` with the figures (the task ends BLOCKED, not resumable).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from workers.agents import wavefiles
from workers.agents.briefings import ReviewPrompts
from workers.agents.budget import OutOfBudget, TaskBudget
from workers.agents.compaction import prune
from workers.agents.context import Conversation, WorkerPrompts
from workers.agents.gitview import Checkout
from workers.agents.ladder_prompts import LadderPrompts
from workers.agents.llm import LLMAdapter, LLMError, LLMRequest, Message
from workers.agents.loop import LoopHooks, LoopResult, StopCause, run_loop
from workers.agents.prompts import Prompts
from workers.agents.roles import RoleSpec, spec_for
from workers.agents.sandbox import Sandbox
from workers.agents.settings import AgentSettings, RunLimits
from workers.agents.stuck import ladder_route
from workers.agents.subtask_prompts import SubtaskPrompts
from workers.agents.task import TaskContext
from workers.agents.taskfiles import TaskFiles
from workers.agents.testing import run_tests, take_baseline
from workers.agents.tools import ToolAccess, ToolBox
from workers.agents.window import Window
from workers.agents.workspace import Workspace
from workers.controller import outcomes, signals
from workers.controller.effects import RunAgent, Session
from workers.controller.outcomes import (
    AgentFailed,
    AssessorDone,
    DoctorDone,
    JudgeDone,
    Outcome,
    ReplanDone,
    ReviewerDone,
    WorkerDone,
)
from workers.controller.phases import JUDGE_VERDICTS, Phase, Role
from workers.controller.routing import Route, Routing
from workers.controller.testrun import TestRun
from workers.gitops.runner import GitError

log = logging.getLogger("agentium.agents")


class AgentSetupError(Exception):
    """The agent cannot be set up (e.g. its route names an adapter nobody provided)."""


def _carry_on() -> None:
    return None


@dataclass(frozen=True)
class AgentDeps:
    adapters: Mapping[str, LLMAdapter]
    routing: Routing
    sandbox: Sandbox
    prompts: Prompts
    settings: AgentSettings
    clock: Callable[[], float]
    # Called before every model call; raises to end the run at once (the engine passes a
    # check of the task's lease: a step that lost its task stops working in its checkout).
    interrupt: Callable[[], None] = _carry_on


@dataclass(frozen=True)
class _Run:
    effect: RunAgent
    spec: RoleSpec
    task: TaskContext
    git: Checkout
    files: TaskFiles


def infrastructure(error: LLMError) -> bool:
    """The model's service failed (overloaded, 5xx, unreachable, rate-limited to the end),
    not the request: the recovery ladder asks the doctor at once."""
    return error.retryable or error.status is None or error.status >= 500


class AgentRunner:
    def __init__(self, deps: AgentDeps) -> None:
        self.deps = deps
        context = deps.settings.context
        self.workers = WorkerPrompts(deps.prompts, context)
        self.subtasks = SubtaskPrompts(self.workers)
        self.reviews = ReviewPrompts(deps.prompts, context)
        self.ladder = LadderPrompts(deps.prompts, context)

    def run(self, effect: RunAgent, task: TaskContext, git: Checkout) -> Outcome:
        spec = spec_for(effect)
        run = _Run(effect, spec, task, git, TaskFiles(task.state_dir))
        budget = TaskBudget(self.deps.settings.budget, run.files.spend_path)
        try:
            budget.check()
            result = self._loop(run, budget)
            return self._finish(run, result)
        except OutOfBudget as error:
            log.warning("budget exceeded", extra={"role": spec.kind.value})
            return outcomes.BudgetExceeded(role=spec.role, detail=str(error))
        except (AgentSetupError, GitError) as error:
            reason, infra = str(error), False
        except LLMError as error:
            reason, infra = f"the model could not be called: {error}", infrastructure(error)
        log.warning("agent failed", extra={"role": spec.kind.value, "reason": reason})
        return AgentFailed(role=spec.role, error=reason, infrastructure=infra)

    def route(self, run: _Run) -> Route:
        """The call's route: after a ladder step, the escalation model or the fallback."""
        escalation = self.deps.settings.escalation.model
        return ladder_route(self.deps.routing, run.effect, escalation)

    def _loop(self, run: _Run, budget: TaskBudget) -> LoopResult:
        route = self.route(run)
        adapter = self.deps.adapters.get(route.adapter)
        if adapter is None:
            raise AgentSetupError(f"no LLM adapter {route.adapter!r} for {run.effect.routing_key}")
        conversation = self._conversation(run)
        toolbox = self._toolbox(run)
        settings = self.deps.settings
        request = LLMRequest(
            model=route.model,
            system=conversation.system,
            tools=toolbox.specs if toolbox else (),
            messages=conversation.messages,
            max_tokens=settings.output.max_tokens,
            cache_ttl=settings.ttl_for(run.spec.role),
        )
        charge = functools.partial(budget.charge, model=route.model)
        interrupt = self.deps.interrupt

        def guard() -> None:
            interrupt()
            budget.check()

        hooks = LoopHooks(clock=self.deps.clock, guard=guard, charge=charge)
        window = Window(settings.window, route.model)
        started = self.deps.clock()
        try:
            result = run_loop(
                adapter, request, toolbox, self._limits(run), hooks,
                window=window, output=settings.output,
            )  # fmt: skip
        finally:
            budget.add_time(self.deps.clock() - started, model=route.model)
        if result.fits:
            log.info("context fitted", extra={"fits": [f.value for f in result.fits]})
        # A conversation continued later carries no stale tool output: stubs say how to
        # get any of it again.
        run.files.save_session(run.spec.session, tuple(prune(list(result.messages), 0)))
        return result

    def _limits(self, run: _Run) -> RunLimits:
        return self.deps.settings.limits_for(run.spec.role)

    def _toolbox(self, run: _Run) -> ToolBox | None:
        access = run.spec.access
        if access is ToolAccess.NONE:
            return None
        writes = access is ToolAccess.WRITE
        scratch = (run.files.scratch(),) if writes else ()
        workspace = Workspace(run.task.checkout, readable=(run.task.state_dir,), writable=scratch)
        sandbox = self.sandbox(run.task) if writes else None
        chars = self.deps.settings.context.tool_output_chars
        return ToolBox(workspace, sandbox, access, max_chars=chars)

    def _conversation(self, run: _Run) -> Conversation:
        effect, task, files = run.effect, run.task, run.files
        if run.spec.role is Role.WORKER and effect.subtask is not None:
            return self.subtasks.conversation(effect, task, files)
        if run.spec.role is Role.WORKER:
            if effect.phase is not Phase.PLAN:
                files.start_phase(effect.phase, run.git.head())
            return self.workers.conversation(effect, task, files)
        if run.spec.role is Role.REVIEWER:
            base = effect.wave.start_commit if effect.wave else task.base_sha
            diff = "" if effect.phase is Phase.PLAN else run.git.diff(base or task.base_sha)
            tests = self.review_tests(run) if effect.phase is Phase.IMPLEMENT else ""
            return self.reviews.reviewer(effect, task, files, diff, tests)
        if run.spec.role is Role.DOCTOR:
            return self.ladder.doctor(effect, task)
        if run.spec.role is Role.REPLANNER:
            return self.ladder.replanner(effect, task, files)
        if run.spec.role is Role.JUDGE:
            earlier = files.load_session("judge") if effect.reask else None
            if earlier and effect.session is Session.CONTINUE:
                system = self.deps.prompts.render("judge.system")
                reminder = Message.user(signals.verdict_reminder(JUDGE_VERDICTS))
                return Conversation(system, (*earlier, reminder))
            stat = "" if effect.phase is Phase.PLAN else run.git.diff_stat(task.base_sha)
            return self.reviews.judge(effect, task, files, stat)
        return self.reviews.assessor(effect, task)

    def sandbox(self, task: TaskContext) -> Sandbox:
        """Where the task's commands run: the sandbox, inside the task's environment."""
        sandbox, environment = self.deps.sandbox, task.environment
        return sandbox if environment is None else environment.confine(sandbox, task.checkout)

    def review_tests(self, run: _Run) -> str:
        """The test command's result for the reviewer; the run is kept for the judge of the
        same iteration and for the reviewer's outcome (the quality gate reads it)."""
        result = run_tests(self.sandbox(run.task), run.task)
        run.files.record_tests(run.effect.phase, run.effect.iteration, result.line, result.run)
        return result.text

    def run_tests(self, task: TaskContext) -> str:
        """The repository's test command, run in the sandbox, as the reviewer sees it."""
        return run_tests(self.sandbox(task), task).text

    def baseline(self, task: TaskContext, git: Checkout) -> TestRun:
        """The test command's run on the base commit, in the task's environment: once per
        task, before PLAN, with the checkout still at the base commit (docs/design.md §12)."""
        return take_baseline(self.sandbox(task), task, git)

    def _finish(self, run: _Run, result: LoopResult) -> Outcome:
        effect, text = run.effect, result.final_text
        if result.stop is not StopCause.DONE:
            note = f"[agentium: stopped by the {result.stop} after {result.steps} model calls]"
            text = f"{text}\n\n{note}".strip()
            log.warning("agent stopped by a limit", extra={"stop": result.stop.value})
        if run.spec.role is Role.WORKER:
            return self._worker_done(run, text)
        if run.spec.role is Role.REVIEWER:
            tests = run.files.test_run(effect.phase, effect.iteration)
            said = text or "(the reviewer wrote no feedback)"
            return ReviewerDone(said, tests if effect.phase is Phase.IMPLEMENT else None)
        if run.spec.role is Role.DOCTOR:
            return DoctorDone(text=result.final_text or None)
        if run.spec.role is Role.REPLANNER:
            return ReplanDone(text=text or None)
        if run.spec.role is Role.JUDGE:
            if result.final_text and effect.wave is not None:
                wave = effect.wave
                wavefiles.record_judge(run.files.root, wave.number, wave.attempt, result.final_text)
            elif result.final_text:
                run.files.record_judge(effect.phase, effect.iteration, result.final_text)
            return JudgeDone(text=result.final_text or None)
        return AssessorDone(text=result.final_text or None)

    def _worker_done(self, run: _Run, text: str) -> WorkerDone:
        effect, files = run.effect, run.files
        if effect.subtask is not None:  # a wave's subtask: its changes stay uncommitted
            return WorkerDone(text=text)
        files.add_worker_report(effect.phase, effect.iteration, text, fresh=True)
        if effect.phase is Phase.PLAN:
            return WorkerDone(text=text)
        sha = run.git.commit_all(self._commit_message(run))
        if sha is not None:
            summary = files.start_phase(effect.phase, sha)
            summary.post = sha
            summary.iterations = sorted({*summary.iterations, effect.iteration})
            summary.files = run.git.changed_files(summary.pre, sha)
            files.save_summary(summary)
        return WorkerDone(text=text, made_commits=sha is not None)

    def _commit_message(self, run: _Run) -> str:
        effect = run.effect
        title = f"{effect.phase.value.title()} iteration {effect.iteration}"
        return f"{title} for {run.task.issue_ref}\n\nMade by the agentium worker agent."
