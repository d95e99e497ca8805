"""The progress of a run: a bar redrawn in place on a terminal, and one line per instance
as it ends (only those lines when the output is not a terminal)."""

from __future__ import annotations

from typing import TextIO

from workers.eval.pool import Progress
from workers.eval.record import InstanceRecord
from workers.eval.report import FATE_WORDS

WIDTH = 30


def ended_line(record: InstanceRecord, done: int, total: int) -> str:
    word = "resolved" if record.resolved else "not resolved"
    fate = FATE_WORDS[record.pr]
    figures = f"{record.wall_seconds:,.0f} s, ${record.dollars:.2f}"
    tail = f": {record.error}" if record.error else ""
    return f"[{done}/{total}] {record.instance_id}: {word}, {fate} ({figures}){tail}"


class ProgressBar:
    def __init__(self, out: TextIO, total: int) -> None:
        self.out = out
        self.total = total
        self.shown = 0
        self.bar = ""
        self.tty = out.isatty()

    def __call__(self, progress: Progress) -> None:
        new = progress.finished[self.shown :]
        if new and self.bar:
            self.out.write("\r" + " " * len(self.bar) + "\r")
            self.bar = ""
        for record in new:
            self.shown += 1
            print(ended_line(record, self.shown, self.total), file=self.out)
        if self.tty:
            self._draw(progress)
        self.out.flush()

    def _draw(self, progress: Progress) -> None:
        done = len(progress.finished)
        filled = WIDTH * done // max(self.total, 1)
        resolved = sum(r.resolved for r in progress.finished)
        bar = (
            f"[{'#' * filled}{'.' * (WIDTH - filled)}] {done}/{self.total} ended, "
            f"{progress.running} running, {resolved} resolved"
        )
        if bar != self.bar:
            self.out.write("\r" + bar.ljust(len(self.bar)))
            self.bar = bar

    def close(self) -> None:
        if self.bar:
            self.out.write("\n")
            self.out.flush()
            self.bar = ""
