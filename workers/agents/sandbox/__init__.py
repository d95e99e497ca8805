"""Agents' commands, confined: see ``core`` (the Sandbox), ``mounts`` (what a command
sees), ``bwrap`` (namespaces, capabilities, limits), ``ownership`` (a root worker's
checkout lent to the unprivileged user), ``process`` (timeouts and the process tree) and
``check`` (the start-up self-test; no silent fallback)."""

from workers.agents.sandbox.bwrap import Bubblewrap
from workers.agents.sandbox.check import INSTALL, SandboxUnavailable, open_sandbox
from workers.agents.sandbox.core import Sandbox, scrubbed_env
from workers.agents.sandbox.mounts import SANDBOX_TMP, BindError
from workers.agents.sandbox.result import NOT_SANDBOXED, CommandResult

__all__ = [
    "INSTALL",
    "NOT_SANDBOXED",
    "SANDBOX_TMP",
    "BindError",
    "Bubblewrap",
    "CommandResult",
    "Sandbox",
    "SandboxUnavailable",
    "open_sandbox",
    "scrubbed_env",
]
