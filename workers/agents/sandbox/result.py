"""What a command gave back: exit code, capped output, and how it ran."""

from __future__ import annotations

import re
from dataclasses import dataclass

NOT_SANDBOXED = (
    "[NOT SANDBOXED: AGENTIUM_UNSAFE_NO_SANDBOX is set, so this command ran with the "
    "worker's own access to files, network and processes]"
)

# Terminal escape sequences (colours, cursor moves, window titles): noise to a model, and
# they would take a good part of a capped output (python-slugify's pytest forces colour).
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def without_escapes(text: str) -> str:
    return _ESCAPES.sub("", text)


@dataclass(frozen=True)
class CommandResult:
    exit_code: int | None
    output: str
    total_bytes: int
    truncated: bool
    timed_out: bool
    sandboxed: bool
    seconds: float

    def describe(self) -> str:
        """The result as the model and the reviewer see it (terminal escapes removed)."""
        if self.timed_out:
            status = f"killed after the timeout ({self.seconds:.0f} s)"
        else:
            status = f"exit code {self.exit_code}"
        lines = [] if self.sandboxed else [NOT_SANDBOXED]
        lines.append(f"[{status}; {self.total_bytes} bytes of output]")
        if self.truncated:
            lines.append("[output cut: only its beginning and end are shown]")
        return "\n".join([*lines, without_escapes(self.output)])


class Capture:
    """Keeps the head and the tail of a stream up to ``cap`` bytes in all."""

    def __init__(self, cap: int) -> None:
        self.head_cap = cap // 2
        self.tail_cap = cap - self.head_cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            del self.tail[: max(0, len(self.tail) - self.tail_cap)]

    @property
    def truncated(self) -> bool:
        return self.total > len(self.head) + len(self.tail)

    def text(self) -> str:
        middle = b"\n[...]\n" if self.truncated else b""
        return (bytes(self.head) + middle + bytes(self.tail)).decode("utf-8", "replace")
