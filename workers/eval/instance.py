"""An instance of an evaluation suite, and the SWE-bench JSONL reader.

A suite is a JSONL file, one instance per line, with SWE-bench's fields read as they are:
``instance_id``, ``repo`` (``owner/name``), ``base_commit``, ``problem_statement``,
``test_patch``, ``FAIL_TO_PASS`` and ``PASS_TO_PASS`` (lists of test ids, or the JSON text
of one, as SWE-bench's dumps have them), ``patch`` (the reference fix: never shown to the
agents). Other SWE-bench fields are ignored. This project adds, all optional:

- ``source``: where the repository comes from: a local archive (``.tar.gz``, ``.tgz``,
  ``.tar``, ``.tar.bz2``, ``.tar.xz``), a local git repository, or a git URL; a relative
  path is relative to the suite file. Without it: ``https://github.com/<repo>.git``.
- ``base_patch``: for an archive, a change committed on top of it (a planted bug).
- ``setup_command`` / ``test_command``: as in ``.github/agentium.yml``, over the
  repository's own file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tar.xz")
_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
MAX_LINE_BYTES = 8 << 20  # one instance; SWE-bench's largest are a few hundred KB


class SuiteError(Exception):
    """The suite cannot be read; the message names the file and line."""


class Instance(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    instance_id: str = Field(pattern=_ID_PATTERN)
    repo: str = Field(min_length=1)
    base_commit: str = Field(min_length=4)
    problem_statement: str = Field(min_length=1)
    test_patch: str = Field(min_length=1)
    fail_to_pass: tuple[str, ...] = Field(alias="FAIL_TO_PASS", min_length=1)
    pass_to_pass: tuple[str, ...] = Field(alias="PASS_TO_PASS", default=())
    patch: str = ""
    source: str | None = None
    base_patch: str = ""
    setup_command: str | None = None
    test_command: str | None = None

    @field_validator("fail_to_pass", "pass_to_pass", mode="before")
    @classmethod
    def _json_text(cls, value: Any) -> Any:
        """SWE-bench's dumps keep the lists as JSON text."""
        return json.loads(value) if isinstance(value, str) else value

    @property
    def title(self) -> str:
        """The problem statement's first line (a markdown heading's text), as the title."""
        first = self.problem_statement.strip().splitlines()[0]
        return first.lstrip("#").strip() or self.instance_id

    @property
    def body(self) -> str:
        return "\n".join(self.problem_statement.strip().splitlines()[1:]).strip()

    def with_source_from(self, folder: Path) -> Instance:
        """A relative local ``source`` made absolute against the suite file's folder."""
        if self.source is None or is_url(self.source) or Path(self.source).is_absolute():
            return self
        return self.model_copy(update={"source": str((folder / self.source).resolve())})


def is_url(source: str) -> bool:
    return "://" in source or source.startswith("git@")


def is_archive(source: str) -> bool:
    return not is_url(source) and source.endswith(ARCHIVE_SUFFIXES)


@dataclass(frozen=True)
class Suite:
    path: Path
    instances: tuple[Instance, ...]

    @property
    def name(self) -> str:
        return self.path.name

    def only(self, ids: Sequence[str]) -> Suite:
        """The instances named (all when none is); an unknown id is an error."""
        if not ids:
            return self
        known = {i.instance_id for i in self.instances}
        unknown = sorted(set(ids) - known)
        if unknown:
            raise SuiteError(f"{self.path}: no instance {', '.join(unknown)}")
        return Suite(self.path, tuple(i for i in self.instances if i.instance_id in ids))


def _instance(path: Path, number: int, line: str) -> Instance:
    where = f"{path}:{number}"
    if len(line.encode()) > MAX_LINE_BYTES:
        raise SuiteError(f"{where}: longer than {MAX_LINE_BYTES:,} bytes")
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise SuiteError(f"{where}: not JSON: {error.msg}") from None
    if not isinstance(data, dict):
        raise SuiteError(f"{where}: expected a JSON object")
    try:
        return Instance.model_validate(data).with_source_from(path.parent)
    except (ValidationError, json.JSONDecodeError) as error:
        raise SuiteError(f"{where}: {_problems(error)}") from None


def _problems(error: ValidationError | json.JSONDecodeError) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"a test list is not JSON: {error.msg}"
    parts = []
    for item in error.errors(include_input=False, include_url=False):
        where = ".".join(str(p) for p in item["loc"])
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def load_suite(path: Path) -> Suite:
    """Every instance of the JSONL file (blank lines skipped); ids must be unique."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise SuiteError(f"cannot read the suite {path}: {error}") from None
    instances: list[Instance] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        instance = _instance(path, number, line)
        if instance.instance_id in seen:
            raise SuiteError(f"{path}:{number}: instance_id {instance.instance_id} repeated")
        seen.add(instance.instance_id)
        instances.append(instance)
    if not instances:
        raise SuiteError(f"{path}: no instance")
    return Suite(path, tuple(instances))
