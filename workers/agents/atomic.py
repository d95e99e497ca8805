"""Files of the task's state directory are replaced whole: written aside, then renamed,
so a reader (or a state save packing the directory) never sees half a file. The ``.tmp``
name is what the state sync leaves out."""

from __future__ import annotations

from pathlib import Path


def write_atomically(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
    return path
