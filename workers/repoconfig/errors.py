"""What is wrong with a repository's settings file, key by key and line by line."""

from __future__ import annotations

from dataclasses import dataclass

from workers.controller.errors import ConfigError

CONFIG_PATH = ".github/agentium.yml"
MAX_CONFIG_BYTES = 64 * 1024


@dataclass(frozen=True)
class Problem:
    """One error: ``key`` is dotted (``limits.SIMPLE.PLAN``), empty for the whole file."""

    key: str
    message: str
    line: int | None = None

    def describe(self, path: str = CONFIG_PATH) -> str:
        where = f"`{path}`" + (f" line {self.line}" if self.line is not None else "")
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"


class RepoConfigError(ConfigError):
    """The settings file is invalid; ``problems`` lists every error found, in file order.

    ``html_url`` (set by the loader) links to the file on GitHub; ``ref`` is the branch read.
    """

    def __init__(
        self,
        problems: list[Problem] | tuple[Problem, ...],
        *,
        path: str = CONFIG_PATH,
        ref: str | None = None,
        html_url: str | None = None,
    ) -> None:
        ordered = sorted(problems, key=lambda p: (p.line is None, p.line or 0, p.key))
        self.problems: tuple[Problem, ...] = tuple(ordered)
        self.path = path
        self.ref = ref
        self.html_url = html_url
        super().__init__("\n".join(p.describe(path) for p in self.problems))

    def located(self, *, ref: str | None, html_url: str | None) -> RepoConfigError:
        """The same problems, with where the file was read from."""
        return RepoConfigError(self.problems, path=self.path, ref=ref, html_url=html_url)


def size_problem(size: int | None) -> Problem:
    """The file is over :data:`MAX_CONFIG_BYTES` (``size`` None: GitHub did not say by how much)."""
    found = f"the file is {size:,} bytes" if size else "the file is too large"
    return Problem("", f"{found}; at most {MAX_CONFIG_BYTES:,} bytes (64 KB) are read")
