"""Writes the registered App's credentials to `.env`: atomically, mode 0600, other lines kept.

Values are single-quoted (no escapes are interpreted there by python-dotenv or a shell), so a
PEM written with literal `\n` separators stays on one line; `Settings` turns them back.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path

from pydantic import SecretStr

MODE = 0o600
_ASSIGNMENT = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=")
_SAFE_VALUE = re.compile(r"^[^'\r\n]*$")


class AlreadyRegistered(Exception):
    """`.env` already names an App (APP_ID); it is never overwritten."""


class EnvFile:
    def __init__(self, path: Path) -> None:
        self.path = path

    def keys(self) -> set[str]:
        return {key.upper() for key, _line in self._lines() if key}

    def has_app_id(self) -> bool:
        return "APP_ID" in self.keys()

    def write(self, values: Mapping[str, str | SecretStr]) -> None:
        """Set `values` (replacing lines with the same keys); refuse when APP_ID exists."""
        if self.has_app_id():
            raise AlreadyRegistered(str(self.path))
        names = {name.upper() for name in values}
        kept = [line for key, line in self._lines() if key not in names]
        added = [f"{name}={_quote(value)}" for name, value in values.items()]
        self._replace("\n".join([*kept, *added]) + "\n")

    def _lines(self) -> list[tuple[str | None, str]]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        return [(_key(line), line) for line in text.splitlines()]

    def _replace(self, text: str) -> None:
        folder = self.path.parent
        fd, tmp = tempfile.mkstemp(prefix=".env.", dir=folder)  # created with mode 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            Path(tmp).chmod(MODE)
            Path(tmp).replace(self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                Path(tmp).unlink()
            raise


def _key(line: str) -> str | None:
    found = _ASSIGNMENT.match(line)
    return found.group(1).upper() if found else None


def _quote(value: str | SecretStr) -> str:
    text = value.get_secret_value() if isinstance(value, SecretStr) else value
    text = text.replace("\n", "\\n")
    if not _SAFE_VALUE.fullmatch(text):
        raise ValueError("a value for .env contains a quote or a line break")
    return f"'{text}'"
