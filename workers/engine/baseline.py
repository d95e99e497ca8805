"""The baseline (docs/design.md §12) in a copy of its own: the test command's run on the
base commit, taken beside the first PLAN call, so the agent never sees what the run
leaves in the tree and neither waits for the other.

The copy is a local clone of the task's checkout (objects hard-linked, no network, no
token) at the base commit, next to the checkout (``<checkout>.slot-baseline``, removed
with it by the workspace's cleanup too), removed again once the run ended. The sandbox
lends it to its user as it lends the checkout (its ``.git`` stays the bot's, read-only).
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import replace
from pathlib import Path

from workers.controller.testrun import TestRun
from workers.engine.session import TaskSession
from workers.gitops.checkout import LocalGit
from workers.repoconfig import EffectiveConfig
from workers.runtime import Runtime

log = logging.getLogger("agentium.steps")

SUFFIX = ".slot-baseline"


def copy_path(checkout: Path) -> Path:
    return checkout.with_name(checkout.name + SUFFIX)


def take_baseline_aside(rt: Runtime, session: TaskSession, config: EffectiveConfig) -> TestRun:
    """The test command on the base commit, in the task's environment, in a copy."""
    record, workspace = session.record, session.workspace
    if record.base_sha is None:
        raise ValueError("the baseline needs the task's base commit")
    copy = copy_path(workspace.path)
    shutil.rmtree(copy, ignore_errors=True)
    git = workspace.git
    try:
        git.run(
            "clone", "--quiet", "--local", "--no-checkout", "--no-tags", "--",
            str(workspace.path.resolve()), str(copy), cwd=copy.parent,
        )  # fmt: skip
        git.run("checkout", "--quiet", "--detach", record.base_sha, cwd=copy)
        context = replace(session.agent_context(config), checkout=copy)
        local = LocalGit(copy, git, author="agentium", email="agentium@localhost")  # no commits
        return session.runner(rt, config).baseline(context, local)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
