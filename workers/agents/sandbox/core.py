"""The Sandbox: a shell command in a checkout, confined, limited, with a scrubbed environment.

- The environment is built from an allow-list (``SandboxSettings.env``, ``PATH``, a
  private ``HOME`` and the variables of the task's environment, see :meth:`Sandbox.within`),
  never copied from the worker process, and any name that looks secret is dropped: no
  ``PRIVATE_KEY``, token, API key or ``REDIS_URL`` reaches a command.
- The command runs in bubblewrap (see ``bwrap`` and ``mounts``): no capability, an
  unprivileged uid in its own user namespace, only the system directories (read-only), the
  checkout (its ``.git`` read-only), the run's ``writable`` and ``readable`` paths and a
  private ``/tmp``; no network unless the run asks for it; limits on processes, memory, file
  size and ``/tmp``; at the timeout the whole process tree ends.
- Only a Sandbox built without bubblewrap (``bwrap=None``, which the runtime does only when
  ``AGENTIUM_UNSAFE_NO_SANDBOX`` is set) runs commands unconfined, and every result then
  says so in its first line.
- The output (stdout and stderr together) is read incrementally: the first and last half of
  ``output_cap_bytes`` are kept and the rest is counted and dropped.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from workers.agents.sandbox.bwrap import (
    Bubblewrap,
    Invocation,
    limit_args,
    root_argv,
    unprivileged_argv,
)
from workers.agents.sandbox.mounts import (
    SANDBOX_TMP,
    BindError,
    Binds,
    checked,
    mount_args,
    resolver_files,
)
from workers.agents.sandbox.ownership import Owner, lent
from workers.agents.sandbox.process import Finished, execute
from workers.agents.sandbox.result import CommandResult
from workers.agents.settings import SandboxSettings

_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "REDIS_URL")
_SHELL = "/bin/sh"


def scrubbed_env(
    settings: SandboxSettings, home: str, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The complete environment of a command: the allow-list and ``extra`` (which may set
    ``PATH`` and ``HOME`` too), minus anything secret-like."""
    env = {"PATH": settings.path, "HOME": home, **settings.env, **(extra or {})}
    return {k: v for k, v in env.items() if not any(w in k.upper() for w in _SECRET_WORDS)}


class Sandbox:
    """Runs shell commands in a checkout. ``bwrap`` is the checked bubblewrap, or None to
    run unconfined (only with the explicit unsafe setting). ``hidden`` paths are masked
    wherever they fall inside something bound; ``readable`` paths are bound read-only in
    every run (besides each run's own), and ``env`` is added to every run's environment."""

    def __init__(
        self,
        settings: SandboxSettings,
        bwrap: Bubblewrap | None,
        *,
        hidden: Iterable[Path] = (),
        readable: Iterable[Path] = (),
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.settings = settings
        self.bwrap = bwrap
        self.hidden = tuple(Path(p).resolve() for p in hidden)
        self.readable = tuple(Path(p) for p in readable)
        self.env = dict(env or {})
        self.as_root = os.geteuid() == 0

    @property
    def isolated(self) -> bool:
        return self.bwrap is not None

    def within(self, env: Mapping[str, str], readable: Iterable[Path] = ()) -> Sandbox:
        """The same sandbox with ``env`` added to every run's environment and ``readable``
        bound read-only in every run: commands inside a task's environment."""
        return Sandbox(
            self.settings,
            self.bwrap,
            hidden=self.hidden,
            readable=(*self.readable, *readable),
            env={**self.env, **env},
        )

    def binds(
        self, checkout: Path, writable: Sequence[Path] = (), readable: Sequence[Path] = ()
    ) -> Binds:
        """The checked binds of one run; raises BindError for a path that may not be bound."""
        system = self.settings.system_paths
        rw = tuple(checked(p, system) for p in (checkout, *writable))
        wanted: list[Path] = [*self.readable, *readable, *map(Path, self._tools())]
        ro = tuple(checked(p, system) for p in wanted)
        clash = set(rw + ro) & set(self.hidden)
        if clash:
            raise BindError(f"{sorted(map(str, clash))[0]} is hidden from commands")
        return Binds(writable=rw, readable=ro, hidden=self.hidden)

    def _tools(self) -> list[str]:
        """The binaries a run uses that no system directory brings along."""
        assert self.bwrap is not None
        tools = [self.bwrap.path, self.bwrap.prlimit, *([self.bwrap.setpriv] * self.as_root)]
        system = [Path(p).resolve() for p in self.settings.system_paths if Path(p).exists()]
        return [t for t in tools if t and not any(Path(t).is_relative_to(s) for s in system)]

    def argv(self, command: str, binds: Binds, *, network: bool, info_fd: int | None) -> list[str]:
        assert self.bwrap is not None
        bwrap, limits = self.bwrap, self.settings.limits
        run = Invocation(
            mounts=mount_args(
                self.settings.system_paths,
                binds,
                limits.tmp_bytes if bwrap.has("--size") else None,
                bwrap.has("--perms"),
            ),
            chdir=binds.writable[0],
            command=[*limit_args(bwrap.prlimit, limits), _SHELL, "-c", command],
            network=network,
            info_fd=info_fd,
        )
        if self.as_root:
            return root_argv(bwrap, run, self.settings.run_as)
        return unprivileged_argv(bwrap, run)

    def run(
        self,
        command: str,
        checkout: Path,
        *,
        timeout: float | None = None,
        writable: Sequence[Path] = (),
        readable: Sequence[Path] = (),
        network: bool = False,
        env: Mapping[str, str] | None = None,
        output_cap: int | None = None,
    ) -> CommandResult:
        """``env`` is added to this run's environment (secret-like names still dropped);
        ``output_cap`` replaces ``output_cap_bytes`` for this run."""
        limit = timeout if timeout is not None else self.settings.timeout_seconds
        cap = output_cap or self.settings.output_cap_bytes
        extra = {**self.env, **(env or {})}
        if self.bwrap is None:
            return self._unconfined(command, checkout, limit, extra, cap)
        resolver = resolver_files(self.settings.system_paths) if network else []
        binds = self.binds(checkout, writable, [*readable, *resolver])
        with self._lent(binds.writable):
            finished = execute(
                lambda fd: self.argv(command, binds, network=network, info_fd=fd),
                scrubbed_env(self.settings, SANDBOX_TMP, extra),
                cwd=binds.writable[0],
                cap=cap,
                limit=limit,
                info=self.bwrap.has("--info-fd"),
            )
        return _result(finished, sandboxed=True)

    def _lent(self, writable: Sequence[Path]) -> AbstractContextManager[None]:
        """A root worker lends the writable trees to ``run_as`` for the run."""
        if not self.as_root:
            return contextlib.nullcontext()
        user = self.settings.run_as
        return lent(writable, Owner(os.getuid(), os.getgid()), Owner(user.uid, user.gid))

    def _unconfined(
        self, command: str, checkout: Path, limit: float, extra: Mapping[str, str], cap: int
    ) -> CommandResult:
        """Only with AGENTIUM_UNSAFE_NO_SANDBOX: the shell in the checkout, a private HOME."""
        with tempfile.TemporaryDirectory(prefix="agentium-home-") as home:
            finished = execute(
                lambda _fd: [_SHELL, "-c", command],
                scrubbed_env(self.settings, home, extra),
                cwd=checkout,
                cap=cap,
                limit=limit,
                info=False,
            )
        return _result(finished, sandboxed=False)


def _result(finished: Finished, *, sandboxed: bool) -> CommandResult:
    capture = finished.capture
    return CommandResult(
        exit_code=finished.exit_code,
        output=capture.text(),
        total_bytes=capture.total,
        truncated=capture.truncated,
        timed_out=finished.timed_out,
        sandboxed=sandboxed,
        seconds=finished.seconds,
    )
