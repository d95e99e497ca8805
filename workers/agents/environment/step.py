"""The environment step: the repository's dependencies installed once per worker and
dependency files, before the agents run (docs/design.md §10).

    step = EnvironmentStep(sandbox, git, data_dir / "envs", settings.environment)
    environment = step.ensure(SetupRequest(repo, checkout, base_sha, command, network, task))
    sandbox_for_agents = environment.confine(sandbox, checkout)

On a cache miss the step clones the task's checkout at its base commit into the
environment's ``src/`` (never the agents' later changes: what runs with the network is
what the repository's maintainers committed), makes a virtual environment with the
sandbox's ``python3`` (so ``python`` and ``pip`` are the environment's) and runs the
repository's ``setup_command``, or the detected one, in the sandbox: with the network
unless the repository turned it off, without any secret, with a timeout and capped
output. A failure is an outcome like any other: it is stored, shown and told to the
agents, and the task goes on.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from workers.agents.environment.detect import Recipe, configured, detect_setup
from workers.agents.environment.key import dependency_files, environment_key
from workers.agents.environment.outcome import Environment, EnvironmentOutcome, setup_variables
from workers.agents.environment.store import LOG, OUTCOME, EnvironmentBusy, Place, prune
from workers.agents.sandbox import Sandbox
from workers.agents.sandbox.result import without_escapes
from workers.agents.settings import EnvironmentSettings
from workers.agents.testcmd import detect_test_command
from workers.gitops.runner import Git, GitError

log = logging.getLogger("agentium.environment")

# Before the setup command: the virtual environment (with pip when this python3 can).
PRELUDE = """\
if [ ! -e "$VIRTUAL_ENV/bin/python" ] && command -v python3 >/dev/null 2>&1; then
  python3 -m venv "$VIRTUAL_ENV" || python3 -m venv --without-pip "$VIRTUAL_ENV" \\
    || echo "agentium setup: no virtual environment could be made"
fi
exec /bin/sh -c "$AGENTIUM_SETUP"
"""
LOCK_SLACK_SECONDS = 120.0


@dataclass(frozen=True)
class SetupRequest:
    """``command`` is the repository's ``setup_command`` (None: detect one); ``task`` the
    task's key (a failed setup is not retried within the task that saw it fail)."""

    repo: str
    checkout: Path
    base_sha: str
    command: str | None
    network: bool
    task: str


class EnvironmentStep:
    def __init__(
        self,
        sandbox: Sandbox,
        git: Git,
        root: Path,
        settings: EnvironmentSettings,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.sandbox = sandbox
        self.git = git
        self.root = root
        self.settings = settings
        self.clock = clock

    def ensure(self, request: SetupRequest) -> Environment:
        """The task's environment on this worker: found in the cache, or built now."""
        try:
            files = dependency_files(self.git, request.checkout, request.base_sha)
        except GitError as error:
            outcome = _failed(request, "", str(error), "the base commit could not be read")
            return Environment(self.root / "unavailable", outcome)
        key = environment_key(request.repo, files, request.command, request.network)
        self.root.mkdir(parents=True, exist_ok=True)
        place = Place(self.root.resolve(), request.repo, key)
        wait = self.settings.timeout_seconds + LOCK_SLACK_SECONDS
        try:
            with place.locked(wait, self.clock):
                outcome = self._cached(place, request) or self._build(place, request, key)
        except EnvironmentBusy as busy:
            outcome = _failed(request, key, f"agentium: {busy}", "waiting for another worker")
        prune(place.dir.parent, self.settings.keep_per_repo, place.dir)
        log.info(
            "environment",
            extra={"repo": request.repo, "ok": outcome.ok, "cached": outcome.cached,
                   "seconds": round(outcome.seconds, 1)},
        )  # fmt: skip
        return Environment(place.dir, outcome)

    def _cached(self, place: Place, request: SetupRequest) -> EnvironmentOutcome | None:
        """A complete environment on disk: a good one, or this task's own failure."""
        found = place.outcome()
        if found is None or not (found.ok or found.built_for == request.task):
            return None
        os.utime(place.dir / OUTCOME)  # recently used: kept by prune
        return found.model_copy(update={"cached": True})

    def _build(self, place: Place, request: SetupRequest, key: str) -> EnvironmentOutcome:
        place.fresh()
        source = place.dir / "src"
        try:
            self._clone(request, source)
        except GitError as error:
            outcome = _failed(request, key, str(error), "the base commit could not be read")
            place.save(outcome)
            return outcome
        recipe = self._recipe(request, source)
        result = self.sandbox.run(
            PRELUDE,
            source,
            writable=[place.dir],
            network=request.network,
            timeout=self.settings.timeout_seconds,
            env={**setup_variables(place.dir, self.sandbox.settings.path),
                 "AGENTIUM_SETUP": recipe.script or "true"},
            output_cap=self.settings.output_cap_bytes,
        )  # fmt: skip
        (place.dir / LOG).write_text(result.output, encoding="utf-8")
        shutil.rmtree(place.dir / "tmp", ignore_errors=True)
        outcome = EnvironmentOutcome(
            ok=result.exit_code == 0 and not result.timed_out,
            command=recipe.summary or "(none)",
            source=recipe.source,
            seconds=result.seconds,
            network=request.network,
            exit_code=result.exit_code,
            timed_out=result.timed_out,
            tail=without_escapes(result.output)[-self.settings.tail_chars :],
            key=key,
            kinds=recipe.kinds,
            built_for=request.task,
        )
        place.save(outcome)
        return outcome

    def _clone(self, request: SetupRequest, source: Path) -> None:
        """The checkout's repository at the base commit, as a clone of its own (hard
        links, no network): build tools that read git (setuptools-scm) find it."""
        self.git.run(
            "clone", "--quiet", "--local", "--no-checkout", "--no-tags", "--",
            str(request.checkout.resolve()), str(source), cwd=source.parent,
        )  # fmt: skip
        self.git.run("checkout", "--quiet", "--detach", request.base_sha, cwd=source)

    def _recipe(self, request: SetupRequest, source: Path) -> Recipe:
        if request.command:
            return configured(request.command, source)
        return detect_setup(source, detect_test_command(source))


def _failed(request: SetupRequest, key: str, tail: str, source: str) -> EnvironmentOutcome:
    return EnvironmentOutcome(
        ok=False,
        command=request.command or "(not run)",
        source=source,
        network=request.network,
        tail=tail,
        key=key,
        built_for=request.task,
    )
