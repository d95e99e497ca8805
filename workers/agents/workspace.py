"""The checkout as the worker's tools see it: every path confined to it.

A path is refused when it is absolute outside the checkout, contains ``..``, goes through
``.git``, or resolves (symlinks followed) outside the checkout. Extra roots may be read by
absolute path (``readable``: the task's state directory, where the plan and feedback files
live) or also written (``writable``: the task's scratch directory). Files are decoded by
:mod:`workers.agents.textfile`, which keeps their encoding and line endings; line numbers
count ``\\n`` line breaks, as editors and tracebacks do.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath

from workers.agents.textfile import TextFile, decode
from workers.agents.toolerrors import PathRefused, ToolError

__all__ = ["PathRefused", "ToolError", "Workspace", "glob_regex", "lines_of"]

MAX_FILE_BYTES = 2_000_000
LIST_LIMIT = 500
SEARCH_LIMIT = 200
WALK_LIMIT = 20_000
LINE_CHARS = 2_000


def lines_of(text: str) -> list[str]:
    """The lines of ``text`` split at ``\\n``, without their ``\\r\\n`` or ``\\n``."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob as a regular expression on ``/`` paths: ``**`` spans directories, ``*`` and
    ``?`` do not; a pattern without ``/`` matches a file name at any depth."""
    if "/" not in pattern:
        pattern = "**/" + pattern
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] in "*?":
            out.append("[^/]*" if pattern[i] == "*" else "[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            inside = pattern[i + 1 : end].replace("\\", "\\\\")
            out.append("[" + ("^" + inside[1:] if inside.startswith("!") else inside) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


class Workspace:
    def __init__(
        self, root: Path, *, readable: Sequence[Path] = (), writable: Sequence[Path] = ()
    ) -> None:
        self.root = root.resolve()
        self.writable = tuple(p.resolve() for p in writable)
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
        roots = (self.root, *self.writable) + (() if write else self.readable)
        if not any(resolved.is_relative_to(root) for root in roots):
            where = "outside the checkout" + (" and the scratch directory" if write else "")
            raise PathRefused(f"refused: {path!r} is {where}")
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

    def glob(self, pattern: str, path: str) -> str:
        if pattern.startswith("/") or ".." in PurePosixPath(pattern).parts:
            raise ToolError("the pattern must be relative and without '..', e.g. src/**/*.py")
        base = self.resolve(path)
        if not base.is_dir():
            raise ToolError(f"{path!r} is not a directory")
        regex, found, note = glob_regex(pattern), [], ""
        for seen, item in enumerate(self._walk(base, 64), 1):
            if seen > WALK_LIMIT:
                note = f"[stopped after {WALK_LIMIT:,} entries: give a narrower path]"
                break
            if regex.fullmatch(item.relative_to(base).as_posix()):
                found.append(self.display(item) + ("/" if item.is_dir() else ""))
        shown = found[:LIST_LIMIT]
        if len(found) > len(shown):
            note = note or f"[{len(found) - len(shown)} more matches not shown]"
        return "\n".join(shown + ([note] if note else [])) or "no matches"

    def load(self, path: str) -> tuple[Path, TextFile]:
        """The file at ``path``, decoded; raises ToolError for a binary or undecodable one."""
        target = self.resolve(path)
        if not target.is_file():
            raise ToolError(f"{path!r} is not a file")
        if target.stat().st_size > MAX_FILE_BYTES:
            raise ToolError(f"{path!r} is larger than {MAX_FILE_BYTES} bytes")
        return target, decode(target.read_bytes(), path)

    def read(self, path: str, start: int, end: int | None, budget: int) -> str:
        """Numbered lines from ``start``, as many as fit ``budget`` characters; what is
        left out is named with the range to read next."""
        _, file = self.load(path)
        lines = lines_of(file.text)
        notes = "; " + file.describe() if file.describe() else ""
        if not lines:
            return f"[{path}: empty file{notes}]"
        first = max(1, start)
        last = len(lines) if end is None else min(end, len(lines))
        if first > last:
            raise ToolError(f"{path!r} has {len(lines)} lines; nothing in {first}-{last}")
        shown: list[str] = []
        used = 0
        for number in range(first, last + 1):
            row = f"{number:6}\t{_clipped(lines[number - 1])}"
            if shown and used + len(row) + 1 > budget:
                break
            shown.append(row)
            used += len(row) + 1
        until = first + len(shown) - 1
        out = [f"[{path}: lines {first}-{until} of {len(lines)}{notes}]", *shown]
        if until < last:
            out.append(
                f"[lines {until + 1}-{last} not shown (one answer holds {budget:,} characters); "
                f"read on with start_line={until + 1}]"
            )
        return "\n".join(out)

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
            _, text = self.load(self.display(file))
        except ToolError:
            return []
        found = []
        for number, line in enumerate(lines_of(text.text), 1):
            if regex.search(line):
                found.append(f"{self.display(file)}:{number}: {line[:300]}")
                if len(found) >= room:
                    break
        return found


def _clipped(line: str) -> str:
    if len(line) <= LINE_CHARS:
        return line
    return f"{line[:LINE_CHARS]} [... {len(line) - LINE_CHARS:,} more characters on this line]"
