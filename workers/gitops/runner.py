"""Running git, the one way the bot does: no shell, a minimal environment, no hooks.

Every git command of the bot (the controller's clone and push, the agents' commit and diff,
local mode, reading the repository's settings) goes through :class:`Git`. Hooks and the
file-system monitor are off for every command, so nothing written into a checkout runs.
The installation token reaches git as an ``http.extraHeader`` set through
``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_0``/``GIT_CONFIG_VALUE_0``: never in the remote URL,
never in ``.git/config``, never in the process arguments (visible in /proc to every
process), never in a log or an error message. Every command runs with
:data:`~workers.gitops.hardening.SAFE_CONFIG` (no hooks, no fsmonitor, safe transports), and
the token is refused to a checkout whose config has keys the bot did not write.
"""

from __future__ import annotations

import base64
import logging
import os
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from workers.gitops.hardening import SAFE_CONFIG, untrusted_keys

log = logging.getLogger("agentium.git")

GIT_TIMEOUT_S = 600
_KEPT = ("PATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")


class GitError(RuntimeError):
    """A git command failed; the message names the subcommand and git's own error text."""


@dataclass(frozen=True)
class GitResult:
    returncode: int
    stdout: str
    stderr: str


Runner = Callable[[Sequence[str], Path, Mapping[str, str]], GitResult]


def run_process(args: Sequence[str], cwd: Path, env: Mapping[str, str]) -> GitResult:
    """The real runner: ``subprocess.run`` without a shell."""
    done = subprocess.run(
        list(args),
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        text=True,
        errors="replace",
        timeout=GIT_TIMEOUT_S,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    return GitResult(done.returncode, done.stdout, done.stderr)


def auth_env(token: str) -> dict[str, str]:
    """Environment that makes git send ``Authorization: Basic base64(x-access-token:TOKEN)``."""
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "http.extraHeader",
        "GIT_CONFIG_VALUE_0": f"Authorization: Basic {basic}",
    }


def base_env(home: Path) -> dict[str, str]:
    """No user or system git config, no prompts, no credential helpers from the host."""
    env = {name: os.environ[name] for name in _KEPT if name in os.environ}
    env.setdefault("PATH", "/usr/bin:/bin")
    env |= {
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "true",
    }
    return env


class Git:
    def __init__(self, home: Path, runner: Runner = run_process) -> None:
        self._home = home
        self._runner = runner

    def run(
        self,
        *args: str,
        cwd: Path,
        token: str | None = None,
        extra_env: Mapping[str, str] | None = None,
        check: bool = True,
    ) -> GitResult:
        env = base_env(self._home) | dict(extra_env or {})
        if token is not None:
            self._refuse_untrusted_config(cwd)
            env |= auth_env(token)
        started = time.perf_counter()
        result = self._runner(["git", *SAFE_CONFIG, *args], cwd, env)
        ms = round((time.perf_counter() - started) * 1000, 1)
        log.info("git", extra={"command": args[0], "returncode": result.returncode, "ms": ms})
        if check and result.returncode != 0:
            raise GitError(
                f"git {args[0]} failed ({result.returncode}): {_scrub(result.stderr, token)}"
            )
        return result

    def _refuse_untrusted_config(self, cwd: Path) -> None:
        """No token for git in a checkout whose own config has keys the bot did not write."""
        if not (cwd / ".git").exists():
            return
        listed = self._runner(
            ["git", *SAFE_CONFIG, "config", "--local", "--includes", "--name-only", "--list"],
            cwd,
            base_env(self._home),
        )
        found = untrusted_keys(listed.stdout)
        if found:
            raise GitError(f"refusing to use credentials: {cwd}/.git/config sets {found[0]}")


def _scrub(text: str, token: str | None) -> str:
    text = text.strip()[-2000:]
    if token:
        text = text.replace(token, "***")
        text = text.replace(auth_env(token)["GIT_CONFIG_VALUE_0"], "***")
    return text
