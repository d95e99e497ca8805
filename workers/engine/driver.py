"""One step of a task: what a `run_step` job does while it holds the task's lease
(taken, and the next step scheduled, by ``workers.engine.stepjob``).

A step applies what people asked for (commands, cancellation) and then makes at most
one agent call, feeding its outcome to the pure controller, performing the effects on
GitHub and saving the state. If the task still waits for an agent, the next step is
scheduled; if something arrived in the inbox while the step ran, a step that hears it
is. A worker killed mid-step loses at most the agent call in flight: the stored state
still waits for it, and the next step (a retry, or the sweep) makes it again once the
dead holder's lease has expired. A step that lost its lease is refused at its next write
and ends quietly (docs/design.md §7).
"""

from __future__ import annotations

import logging

from workers.controller.effects import RunWave
from workers.controller.errors import OutcomeMismatch
from workers.controller.ladder import waiting_for_answer
from workers.controller.outcomes import (
    Command,
    EffectsFailed,
    HumanAnswer,
    HumanCommand,
    Outcome,
    Start,
)
from workers.controller.phases import Role
from workers.controller.review import accepts_review, batch_reviews
from workers.controller.transitions import pending_agent, step
from workers.engine.environment import environment_line, set_up
from workers.engine.opening import Opening, catch_up
from workers.engine.pending import Pending
from workers.engine.repo_settings import config_text_at, effective_config
from workers.engine.reviews import as_review
from workers.engine.session import TaskSession
from workers.engine.stopwatch import Stopwatch
from workers.engine.wavestep import WaveJobs, WaveStep
from workers.github import permissions
from workers.github.comments import post_once
from workers.intake.repo_labels import remember
from workers.repoconfig import RepoConfigError, defaults_only, format_config_error
from workers.runtime import Runtime
from workers.tasks.inbox import (
    CancelRequest,
    CommandRequest,
    InboxItem,
    IssueReply,
    PullRequestClosed,
    Review,
    ReviewComment,
    ReviewSubmitted,
)
from workers.tasks.lease import Lease
from workers.tasks.record import TaskStatus

log = logging.getLogger("agentium.steps")


class Driver:
    def __init__(
        self,
        rt: Runtime,
        session: TaskSession,
        lease: Lease,
        jobs: WaveJobs | None = None,
        watch: Stopwatch | None = None,
    ) -> None:
        self.rt = rt
        self.watch = watch or Stopwatch.started()
        self.session = session
        self.lease = lease
        self.record = session.record
        self.kept = 0  # inbox items this step put back (reviews waiting for the end)
        self.jobs = jobs
        self.wave_running = False
        self.prepared = False
        self.pending = Pending(self.record, session.effects, session.workspace)
        self.opening: Opening | None = None  # the first step's work beside its main line
        self.config = defaults_only(rt.config_defaults)
        if self.record.workflow.started:
            self.config = effective_config(rt.config_defaults, self.record.repo_config)
        session.effects.environment = environment_line(self.record.environment)

    def run(self) -> str:
        if not self.record.workflow.started and not self.begin():
            return "refused"
        if self.record.pending_effects and self.active and not self.diagnosing:
            self.retry_effects()  # the doctor first, when it was asked about them
        self.handle_inbox()
        if not self.wants_agent():
            return "idle" if self.active else f"task_{self.record.status.value}"
        if self.record.pending_effects and not self.diagnosing:
            return "effects_pending"  # the next step performs them again first
        self.prepare()
        effect = pending_agent(self.record.workflow, self.config.limits)
        if isinstance(effect, RunWave):
            return self.wave(effect)
        assert effect is not None
        context = self.session.agent_context(self.config)
        runner = self.session.runner(self.rt, self.config, self.opening)
        self.watch.lap("context")
        self.watch.report(log, task=self.record.key, role=effect.role.value)
        outcome = runner.run(effect, context, self.session.checkout())
        if self.opening is not None:
            self.opening.settle()  # the start's effects and baseline before the outcome's
        self.apply(outcome)
        following = pending_agent(self.record.workflow, self.config.limits)
        if self.wants_agent() and isinstance(following, RunWave) and self.jobs is not None:
            self.wave(following)  # a wave starts in this step: no hop through another job
        return f"ran_{effect.role.value.lower()}"

    def wave(self, effect: RunWave) -> str:
        """Launch the wave's subtasks, or join them once they all ended."""
        if self.jobs is None:
            raise RuntimeError("this step cannot launch subtasks (no wave jobs given)")
        result = WaveStep(self, self.jobs).run(effect)
        self.wave_running = result not in ("joined", "subtask_failed", "budget")
        return result

    def prepare(self) -> None:
        """The checkout at the task's last pushed commit (or the one a waiting push is to
        push), its state files and its environment (from this worker's cache, or set up
        now), on any worker."""
        if self.prepared:
            return
        self.prepared = True
        workspace = self.session.workspace
        workspace.prepare()
        head = self.pending.start_commit()
        if head is not None:  # never pushed: nothing to fetch
            workspace.sync_to(head, fetch=self.record.head_sha is not None)
        self.watch.lap("checkout")
        if self.opening is not None:
            self.opening.map_ready()  # its state directory is written by no one else now
        self.session.files.restore()
        self.watch.lap("state")
        if self.session.environment is None:
            set_up(self.rt, self.session, self.config)
            self.watch.lap("environment")
        if self.opening is None:
            catch_up(self)  # what a killed first step lost: start effects, baseline

    def retry_effects(self) -> None:
        """Perform the effects a failed push or GitHub call left, before anything else."""
        if self.pending.push_waiting:
            self.prepare()
        failed = self.pending.perform((), self.record.workflow)
        self.save(step=False)
        if failed is not None:
            self.apply(EffectsFailed(failed.what, failed.error))

    @property
    def diagnosing(self) -> bool:
        """The doctor diagnoses a failed push or GitHub call while its effects wait."""
        awaiting = self.record.workflow.awaiting
        return awaiting is not None and awaiting.role is Role.DOCTOR

    @property
    def active(self) -> bool:
        return self.record.status is TaskStatus.ACTIVE

    def wants_agent(self) -> bool:
        state = self.record.workflow
        return self.active and state.awaiting is not None and state.paused is None

    def begin(self) -> bool:
        """Admit the trigger (beside the clone), prepare the checkout and start the
        controller; the start's GitHub effects and the baseline run beside the first call."""
        record, session = self.record, self.session
        opening = self.opening = Opening(self)
        admitted = opening.admit()
        session.workspace.prepare()
        if record.base_sha is None:
            record.base_sha = session.workspace.cloned_head or session.workspace.head()
        self.watch.lap("clone")
        if not admitted.result():  # before anything else happens: no agent call, no clone
            session.workspace.cleanup()
            self.close(TaskStatus.CANCELLED, f"{record.trigger_user} may not trigger the bot")
            return False
        self.watch.lap("admit_wait")
        if not self.configure():
            return False
        self.watch.lap("config")
        set_up(self.rt, session, self.config)  # before PLAN: its outcome is in the status
        self.watch.lap("environment")
        opening.start_beside()  # the map, the baseline, a spare checkout, the start's effects
        session.effects.start()
        self.apply(Start(baseline=None, title=record.issue_title, body=record.issue_body))
        self.watch.lap("start")
        return True

    def configure(self) -> bool:
        """Read the repository's settings at the base commit; a bad file stops the task."""
        record, session = self.record, self.session
        assert record.base_sha is not None
        text = config_text_at(session.workspace.git, session.workspace.path, record.base_sha)
        try:
            self.config = effective_config(self.rt.config_defaults, text)
        except RepoConfigError as error:
            body = format_config_error(error, label=self.config.trigger_label)
            self.lease.check()
            post_once(session.gh, session.ref, "config-error", body, session.effects.marks)
            self.close(TaskStatus.CANCELLED, "invalid .github/agentium.yml")
            return False
        record.repo_config = text
        remember(self.rt.redis, record.repo, self.config.trigger_label)
        return True

    def apply(self, outcome: Outcome) -> None:
        record = self.record
        steps_before = len(record.workflow.recovery.steps)
        record.workflow = record.workflow.model_copy(update={"spend": self.session.spend()})
        try:
            transition = step(
                record.workflow,
                outcome,
                self.config.limits,
                now=self.rt.now(),
                rules=self.config.plan_rules,
            )
        except OutcomeMismatch:
            log.warning(
                "stale outcome dropped", extra={"task": record.key, "outcome": repr(outcome)[:80]}
            )
            return
        failure = isinstance(outcome, EffectsFailed)
        failed = self.pending.perform(transition.effects, transition.state, at_once=failure)
        record.workflow = transition.state
        self.save(step=True)
        taken = record.workflow.recovery.steps[steps_before:]
        self.rt.store.count_recovery([rung.action.value for rung in taken])
        if failed is not None and not failure:  # a failure's own effects just wait
            self.apply(EffectsFailed(failed.what, failed.error))

    def save(self, *, step: bool) -> None:
        record, state = self.record, self.record.workflow
        record.pr_number = self.session.effects.pr_number or record.pr_number
        record.head_sha = self.session.workspace.pushed_head() or record.head_sha
        record.steps += int(step)
        ended = state.phase.is_terminal and state.paused is None
        if ended and not record.pending_effects:
            record.status = TaskStatus.FINISHED
            record.status_reason = state.end_reason or state.phase.value
        self.rt.store.save(record, lease=self.lease)
        if step:
            self.session.files.save(record.steps)

    def close(self, status: TaskStatus, reason: str) -> None:
        self.record.status = status
        self.record.status_reason = reason
        self.rt.store.save(self.record, lease=self.lease)

    def handle_inbox(self) -> None:
        kept: list[InboxItem] = []
        for item in self.rt.store.take_inbox(self.record.key):
            kept += self.handle_item(item) if self.active else [item]
        reviews = [item for item in kept if isinstance(item, ReviewSubmitted | ReviewComment)]
        if reviews and self.active and accepts_review(self.record.workflow):
            kept = [item for item in kept if item not in reviews]
            self.review(reviews)
        self.rt.store.requeue_inbox(self.record.key, kept)
        self.kept = len(kept)

    def review(self, items: list[Review]) -> None:
        """Reviews of the finished PR by permitted people start a review round."""
        found = [as_review(item) for item in items if self.permitted(item.user)]
        reviews = [review for review in found if review is not None]
        if reviews:
            self.apply(batch_reviews(reviews))

    def handle_item(self, item: InboxItem) -> list[InboxItem]:
        """Apply one queued item; returns it if it must wait (a review during a run)."""
        match item:
            case CancelRequest():
                self.human(Command.STOP, item.user)
                self.close(TaskStatus.CANCELLED, item.reason)
            case CommandRequest() if self.permitted(item.user):
                self.human(Command(item.command), item.user)
            case IssueReply() if waiting_for_answer(self.record.workflow):
                if self.permitted(item.user):  # an answer to the recovery ladder's question
                    self.apply(HumanAnswer(item.body, item.user))
            case PullRequestClosed() if item.merged:
                self.close(TaskStatus.FINISHED, "pull request merged")
            case ReviewSubmitted() | ReviewComment():
                return [item]  # applied as one round once the task is complete
        return []

    def human(self, command: Command, user: str) -> None:
        state = self.record.workflow
        if command is Command.STOP and (state.awaiting is None or state.paused is not None):
            return  # nothing runs: nothing to stop
        self.apply(HumanCommand(command, user))

    def permitted(self, user: str) -> bool:
        session = self.session
        return permissions.admit(session.gh, session.ref, user, session.effects.marks)
