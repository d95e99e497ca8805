"""What the environment step gave: its outcome (stored with the task) and the environment
that later commands run inside (docs/design.md §10)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from workers.agents.sandbox import SANDBOX_TMP, Sandbox

NOTHING_DETECTED = "(nothing detected)"


class EnvironmentOutcome(BaseModel):
    """How the setup of a task's environment went; kept in the task record (the dashboard
    reads it as plain JSON), in the status comment and in the agents' prompts.

    ``seconds`` is the setup's own run time (on the worker that built it); ``cached`` says
    that this step found it already built on this worker's disk.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    ok: bool
    command: str
    source: str  # "configured", "detected: python, node", or NOTHING_DETECTED
    seconds: float = 0.0
    cached: bool = False
    network: bool = True
    exit_code: int | None = None
    timed_out: bool = False
    tail: str = ""  # the end of the setup's log
    key: str = ""  # repository, dependency files and command, hashed
    kinds: tuple[str, ...] = ()  # python, node, rust, go
    built_for: str = ""  # the task whose step built it

    def line(self) -> str:
        """One line for the status comment: ``ok in 12 s (detected: python), from cache``."""
        when = f"{self.seconds:.1f} s"
        if self.ok:
            head = f"ok in {when}"
        elif self.timed_out:
            head = f"failed: killed after {when}"
        else:
            code = "" if self.exit_code is None else f" (exit code {self.exit_code})"
            head = f"failed{code} after {when}"
        where = ", from this worker's cache" if self.cached else ""
        return f"{head} ({self.source}){where}"


@dataclass(frozen=True)
class Environment:
    """A task's environment on this worker: ``root`` holds ``venv/`` (the Python virtual
    environment), ``src/`` (the base commit the setup ran in, with e.g. ``node_modules/``)
    and the tools' download caches. Commands run with its variables, ``root`` read-only."""

    root: Path
    outcome: EnvironmentOutcome

    @property
    def venv(self) -> Path:
        return self.root / "venv"

    def bin_dirs(self) -> list[Path]:
        found = [self.venv / "bin", self.root / "src" / "node_modules" / ".bin"]
        return [path for path in found if path.is_dir()]

    def variables(self, checkout: Path, path: str) -> dict[str, str]:
        """The environment of a command in ``checkout`` (``path``: the sandbox's PATH)."""
        found = {"PATH": ":".join([*map(str, self.bin_dirs()), path])}
        if (self.venv / "bin").is_dir():
            found["VIRTUAL_ENV"] = str(self.venv)
        if "python" in self.outcome.kinds:
            # The checkout's code before the copy installed from the base commit.
            source = checkout.resolve()
            found["PYTHONPATH"] = str(source / "src" if (source / "src").is_dir() else source)
        modules = self.root / "src" / "node_modules"
        if modules.is_dir():
            found |= {"NODE_PATH": str(modules), "npm_config_offline": "true"}
        if (self.root / "cargo").is_dir():
            found |= {"CARGO_HOME": str(self.root / "cargo"), "CARGO_NET_OFFLINE": "true"}
        if (self.root / "go").is_dir():
            found |= go_variables(self.root) | {"GOFLAGS": "-mod=mod", "GOPROXY": "off"}
            found["GOCACHE"] = f"{SANDBOX_TMP}/go-build"  # the command's private /tmp
        return found

    def confine(self, sandbox: Sandbox, checkout: Path) -> Sandbox:
        """``sandbox`` with this environment: its variables, its directory read-only (when
        there is one: a step that could not even start leaves none)."""
        readable = (self.root,) if self.root.is_dir() else ()
        return sandbox.within(self.variables(checkout, sandbox.settings.path), readable)


def go_variables(root: Path) -> dict[str, str]:
    return {
        "GOPATH": str(root / "go"),
        "GOMODCACHE": str(root / "go" / "pkg" / "mod"),
        "GOTOOLCHAIN": "local",
    }


def setup_variables(root: Path, path: str) -> dict[str, str]:
    """The environment of the setup run itself: the tools install into ``root``."""
    bins = [root / "venv" / "bin", root / "src" / "node_modules" / ".bin"]
    return {
        "PATH": ":".join([*map(str, bins), path]),
        "HOME": str(root / "home"),
        "TMPDIR": str(root / "tmp"),
        "VIRTUAL_ENV": str(root / "venv"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "npm_config_cache": str(root / "npm-cache"),
        "npm_config_update_notifier": "false",
        "CARGO_HOME": str(root / "cargo"),
        "GOCACHE": str(root / "tmp" / "go-build"),
        **go_variables(root),
    }
