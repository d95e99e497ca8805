"""The checkout as the worker's tools see it: every path confined to it.

A path is refused when it is absolute outside the checkout, contains ``..``, goes through
``.git``, or resolves (symlinks followed) outside the checkout. Extra read-only roots (the
task's state directory, where the plan and feedback files live) may be read by absolute path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath

MAX_FILE_BYTES = 2_000_000
LIST_LIMIT = 500
SEARCH_LIMIT = 200


class ToolError(Exception):
    """A tool call that cannot be done; the message goes back to the model."""


class PathRefused(ToolError):
    """A path outside the checkout (or into ``.git``)."""


class Workspace:
    def __init__(self, root: Path, *, readable: Sequence[Path] = ()) -> None:
        self.root = root.resolve()
        self.readable = tuple(p.resolve() for p in readable)

    def resolve(self, path: str, *, write: bool = False) -> Path:
        if "\x00" in path:
            raise PathRefused("refused: the path contains a NUL byte")
        given = PurePosixPath(path.strip() or ".")
        if ".." in given.parts:
            raise PathRefused(f"refused: {path!r} contains '..'; use paths inside the checkout")
        if ".git" in given.parts:
            raise PathRefused(f"refused: {path!r} is inside .git")
        candidate = Path(given) if given.is_absolute() else self.root / given
        resolved = candidate.resolve()
        roots = (self.root,) if write else (self.root, *self.readable)
        if not any(resolved.is_relative_to(root) for root in roots):
            raise PathRefused(f"refused: {path!r} is outside the checkout")
        if resolved.is_relative_to(self.root) and ".git" in resolved.relative_to(self.root).parts:
            raise PathRefused(f"refused: {path!r} leads into .git")
        return resolved

    def display(self, path: Path) -> str:
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)

    def listing(self, path: str, depth: int) -> str:
        base = self.resolve(path)
        if not base.is_dir():
            raise ToolError(f"{path!r} is not a directory")
        entries = []
        for item in self._walk(base, max(1, min(depth, 5))):
            entries.append(self.display(item) + ("/" if item.is_dir() else ""))
            if len(entries) >= LIST_LIMIT:
                entries.append(f"[listing stopped at {LIST_LIMIT} entries]")
                break
        return "\n".join(entries) or "(empty)"

    def _walk(self, base: Path, depth: int) -> Iterator[Path]:
        for item in sorted(base.iterdir()):
            if item.name == ".git":
                continue
            yield item
            if item.is_dir() and not item.is_symlink() and depth > 1:
                yield from self._walk(item, depth - 1)

    def read_text(self, path: str) -> tuple[Path, str]:
        target = self.resolve(path)
        if not target.is_file():
            raise ToolError(f"{path!r} is not a file")
        if target.stat().st_size > MAX_FILE_BYTES:
            raise ToolError(f"{path!r} is larger than {MAX_FILE_BYTES} bytes")
        data = target.read_bytes()
        if b"\x00" in data[:8192]:
            raise ToolError(f"{path!r} is a binary file")
        return target, data.decode("utf-8", "replace")

    def read(self, path: str, start: int, end: int | None) -> str:
        _, text = self.read_text(path)
        lines = text.splitlines()
        first = max(1, start)
        last = len(lines) if end is None else min(end, len(lines))
        numbered = [f"{n:6}\t{lines[n - 1]}" for n in range(first, last + 1)]
        header = f"[{path}: lines {first}-{last} of {len(lines)}]"
        return "\n".join([header, *numbered])

    def search(self, pattern: str, path: str, glob: str | None, ignore_case: bool) -> str:
        try:
            regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        except re.error as error:
            raise ToolError(f"bad regular expression: {error}") from None
        base = self.resolve(path)
        files = [base] if base.is_file() else self._files(base, glob)
        hits: list[str] = []
        for file in files:
            hits += self._grep(file, regex, SEARCH_LIMIT - len(hits))
            if len(hits) >= SEARCH_LIMIT:
                hits.append(f"[search stopped at {SEARCH_LIMIT} matches]")
                break
        return "\n".join(hits) or "no matches"

    def _files(self, base: Path, glob: str | None) -> Iterator[Path]:
        for item in self._walk(base, 64):
            if item.is_file() and not item.is_symlink() and (glob is None or item.match(glob)):
                yield item

    def _grep(self, file: Path, regex: re.Pattern[str], room: int) -> list[str]:
        try:
            _, text = self.read_text(self.display(file))
        except ToolError:
            return []
        found = []
        for number, line in enumerate(text.splitlines(), 1):
            if regex.search(line):
                found.append(f"{self.display(file)}:{number}: {line[:300]}")
                if len(found) >= room:
                    break
        return found

    def write(self, path: str, content: str) -> str:
        target = self.resolve(path, write=True)
        if target.is_dir():
            raise ToolError(f"{path!r} is a directory")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        return f"wrote {self.display(target)} ({len(content)} characters)"

    def edit(self, path: str, old: str, new: str, replace_all: bool) -> str:
        if not old:
            raise ToolError("old_string is empty; use write_file to create a file")
        target, text = self.read_text(path)
        self.resolve(path, write=True)
        count = text.count(old)
        if count == 0:
            raise ToolError(f"old_string not found in {path!r}; read the file and copy it exactly")
        if count > 1 and not replace_all:
            raise ToolError(
                f"old_string occurs {count} times in {path!r}; add context or set replace_all"
            )
        target.write_text(text.replace(old, new), encoding="utf-8")
        return f"edited {self.display(target)}: {count if replace_all else 1} replacement(s)"
