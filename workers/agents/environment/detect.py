"""The setup command a repository needs, detected from its files (docs/design.md §10).

- Python (``pyproject.toml`` with a ``[project]``, ``setup.py``, ``setup.cfg`` or
  requirements files): ``python -m pip install -e '.[test]'`` (the first of the extras
  ``test``, ``tests``, ``testing``, else ``dev``) with every requirements file but the
  docs' in one resolution, then pytest when the test command needs it and nothing brought it.
- Node (``package.json``): ``npm ci`` with a lockfile, ``npm install`` without.
- Rust (``Cargo.toml``): ``cargo fetch``. Go (``go.mod``): ``go mod download``.
- Only when none of these applies: a devcontainer's ``postCreateCommand``.

Each part runs even when an earlier one failed; the script exits non-zero if any did.
The step always makes the virtual environment first (``workers.agents.environment.step``).
"""

from __future__ import annotations

import configparser
import json
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path

from workers.agents.environment.outcome import NOTHING_DETECTED

TEST_EXTRAS = ("test", "tests", "testing")
_REQUIREMENTS_RE = re.compile(r"requirements.*\.txt$|.*[-_.]requirements\.txt$")
PYTEST_CHECK = "python -c 'import pytest' 2>/dev/null || python -m pip install pytest"


@dataclass(frozen=True)
class Recipe:
    """What the setup runs: ``script`` (a shell script; empty when nothing applies), and
    ``summary``, its commands on one line for people and prompts."""

    script: str
    source: str
    kinds: tuple[str, ...] = ()
    summary: str = ""


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _pyproject(tree: Path) -> dict[str, object]:
    try:
        return tomllib.loads(_read(tree / "pyproject.toml"))
    except tomllib.TOMLDecodeError:
        return {}


def declared_extras(tree: Path) -> list[str]:
    """The optional-dependency groups of the project (pyproject or setup.cfg)."""
    project = _pyproject(tree).get("project")
    extras = project.get("optional-dependencies") if isinstance(project, dict) else None
    if isinstance(extras, dict):
        return [str(name) for name in extras]
    parser = configparser.ConfigParser()
    try:
        parser.read_string(_read(tree / "setup.cfg"))
    except configparser.Error:
        return []
    return list(parser.options("options.extras_require")) if parser.has_section(
        "options.extras_require"
    ) else []  # fmt: skip


def chosen_extra(extras: list[str]) -> str | None:
    for name in TEST_EXTRAS:
        if name in extras:
            return name
    return "dev" if "dev" in extras else None


def is_python_project(tree: Path) -> bool:
    if (tree / "setup.py").is_file() or "[metadata]" in _read(tree / "setup.cfg"):
        return True
    return isinstance(_pyproject(tree).get("project"), dict)


def requirements_files(tree: Path) -> list[str]:
    """Requirements files at the root and in ``requirements/``, the docs' left out."""
    found = [p for p in tree.glob("*.txt") if _REQUIREMENTS_RE.match(p.name)]
    found += list((tree / "requirements").glob("*.txt"))
    names = [str(p.relative_to(tree)) for p in found if "doc" not in p.name.lower()]
    return sorted(names, key=lambda name: (name != "requirements.txt", name))


def python_script(tree: Path, needs_pytest: bool) -> str | None:
    args: list[str] = []
    if is_python_project(tree):
        extra = chosen_extra(declared_extras(tree))
        args += ["-e", f".[{extra}]" if extra else "."]
    for name in requirements_files(tree):
        args += ["-r", name]
    steps = [f"python -m pip install {shlex.join(args)}"] if args else []
    if needs_pytest:
        steps.append(PYTEST_CHECK)
    return " && ".join(steps) if steps else None


def node_script(tree: Path) -> str | None:
    if not (tree / "package.json").is_file():
        return None
    locked = any((tree / name).is_file() for name in ("package-lock.json", "npm-shrinkwrap.json"))
    return "npm ci" if locked else "npm install"


def post_create_command(tree: Path) -> str | None:
    """A devcontainer's ``postCreateCommand`` (string, argv list or named commands)."""
    for path in (tree / ".devcontainer" / "devcontainer.json", tree / ".devcontainer.json"):
        try:
            data = json.loads(strip_json_comments(_read(path)) or "{}")
        except json.JSONDecodeError:
            continue
        command = data.get("postCreateCommand") if isinstance(data, dict) else None
        if isinstance(command, str) and command.strip():
            return command.strip()
        if isinstance(command, list) and command:
            return shlex.join(str(part) for part in command)
        if isinstance(command, dict) and command:
            parts = [c if isinstance(c, str) else shlex.join(map(str, c)) for c in command.values()]
            return " && ".join(parts)
    return None


def strip_json_comments(text: str) -> str:
    """JSON with comments (devcontainer.json's dialect) to JSON: ``//`` and ``/* */``
    outside strings removed, trailing commas before ``}`` or ``]`` dropped."""
    out: list[str] = []
    index, length, in_string = 0, len(text), False
    while index < length:
        char = text[index]
        if in_string:
            out.append(char)
            if char == "\\" and index + 1 < length:
                out.append(text[index + 1])
                index += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            out.append(char)
        elif text.startswith("//", index):
            index = text.find("\n", index)
            index = length if index < 0 else index
            continue
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            index = length if end < 0 else end + 2
            continue
        else:
            out.append(char)
        index += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def compose(parts: list[tuple[str, str]]) -> str:
    """One script running every ``(kind, command)`` part, each even after a failure."""
    lines = ["agentium_status=0"]
    for kind, command in parts:
        lines.append(f"echo {shlex.quote(f'agentium setup ({kind}): {command}')}")
        lines.append(f"{{ {command}\n}} || agentium_status=1")
    lines.append("exit $agentium_status")
    return "\n".join(lines)


def detect_setup(tree: Path, test_command: str | None) -> Recipe:
    """The recipe for the repository whose files are in ``tree``."""
    needs_pytest = bool(test_command and "pytest" in test_command)
    found = [
        ("python", python_script(tree, needs_pytest)),
        ("node", node_script(tree)),
        ("rust", "cargo fetch" if (tree / "Cargo.toml").is_file() else None),
        ("go", "go mod download" if (tree / "go.mod").is_file() else None),
    ]
    parts = [(kind, command) for kind, command in found if command]
    if not parts:
        hint = post_create_command(tree)
        if hint is None:
            return Recipe("", NOTHING_DETECTED)
        parts = [("devcontainer", hint)]
    kinds = tuple(kind for kind, _ in parts)
    summary = "; ".join(command for _, command in parts)
    return Recipe(compose(parts), f"detected: {', '.join(kinds)}", kinds, summary)


def configured(command: str, tree: Path) -> Recipe:
    """The repository's own ``setup_command``; its kinds still guide the variables."""
    kinds = ("python",) if is_python_project(tree) or requirements_files(tree) else ()
    return Recipe(command, "configured", kinds, command)
