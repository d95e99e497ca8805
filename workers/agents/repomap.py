"""A map of the repository for the prompts: its files and their main symbols, ranked.

- The files, one line per directory (hidden directories but ``.github``, vendored and
  build directories left out).
- The main symbols of the files that matter most: Python classes (with their methods) and
  functions by :mod:`ast`; other languages by simple line patterns (``function``,
  ``class``, ``func``, ``fn``, ``struct``, ``interface``...).
- Ranked: a file scores by how many other files use the names it defines (and its module
  name); tests count half. Most used first, until the character budget is spent.

Built once per task (see ``TaskFiles.repo_map``), so every prompt that shows it stays
byte-identical. Bounded: files listed, bytes read per file and in all.
"""

from __future__ import annotations

import ast
import os
import re
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

SKIP_DIRS = frozenset(
    {"node_modules", "venv", "env", "__pycache__", "site-packages", "dist", "build"}
    | {"target", "vendor", "third_party", "htmlcov", "coverage"}
)
MAX_FILES = 5_000
FILE_BYTES = 200_000
TOTAL_BYTES = 20_000_000
LINE_CHARS = 300
MAX_SYMBOLS = 15
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_PATTERNS = tuple(
    re.compile(p, re.MULTILINE)
    for p in (
        r"^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:async[ \t]+)?function\*?[ \t]+([\w$]+)",
        r"^[ \t]*(?:export[ \t]+)?(?:public[ \t]+|abstract[ \t]+|final[ \t]+)*"
        r"(?:class|interface|enum|trait|struct|module)[ \t]+([A-Za-z_$][\w$]*)",
        r"^[ \t]*(?:export[ \t]+)?(?:type)[ \t]+([A-Za-z_]\w*)",
        r"^[ \t]*(?:export[ \t]+)?const[ \t]+([\w$]+)[ \t]*=[ \t]*(?:async[ \t]*)?\(",
        r"^func[ \t]+(?:\([^)]*\)[ \t]*)?([A-Za-z_]\w*)",
        r"^[ \t]*(?:pub(?:\([^)]*\))?[ \t]+)?(?:async[ \t]+)?fn[ \t]+([A-Za-z_]\w*)",
        r"^[ \t]*def[ \t]+([A-Za-z_]\w*[?!]?)",
    )
)
_CODE = frozenset(
    {".js", ".jsx", ".mjs", ".ts", ".tsx", ".go", ".rs", ".java", ".kt", ".rb", ".php"}
    | {".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".swift", ".scala", ".sh"}
)


@dataclass
class _File:
    path: str
    symbols: list[str] = field(default_factory=list)
    defines: set[str] = field(default_factory=set)
    uses: set[str] = field(default_factory=set)


def _listed(folder: str) -> bool:
    return folder not in SKIP_DIRS and (not folder.startswith(".") or folder == ".github")


def listed_files(root: Path) -> list[str]:
    """Paths relative to ``root``, sorted, without hidden or vendored directories."""
    names: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if _listed(d))
        base = Path(folder).relative_to(root)
        room = MAX_FILES - len(names)
        names += [(base / name).as_posix() for name in sorted(files)[:room]]
        if len(names) >= MAX_FILES:
            break
    return sorted(names)


def _python(source: str) -> tuple[list[str], set[str]]:
    tree = ast.parse(source)
    shown, names = [], set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            methods = list(
                dict.fromkeys(
                    n.name
                    for n in node.body
                    if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                )
            )
            listed = ", ".join(m for m in methods if not m.startswith("_") or m == "__init__")
            shown.append(f"class {node.name}" + (f": {listed}" if listed else ""))
            names |= {node.name, *methods}
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = ", ".join(a.arg for a in node.args.args)
            shown.append(f"def {node.name}({arguments})")
            names.add(node.name)
    return shown, names


def _patterns(source: str) -> tuple[list[str], set[str]]:
    found: list[tuple[int, str, str]] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(source):
            end = source.find("\n", match.start())
            line = source[match.start() : end if end != -1 else None]
            found.append((match.start(), line.strip().rstrip("{").strip(), match[1]))
    found.sort()
    return [line for _, line, _ in found], {name for _, _, name in found}


def _head(path: Path) -> bytes:
    """The first FILE_BYTES of a regular file; nothing for a link, a FIFO or a device
    (the checkout is the repository's, and a FIFO would block the read forever)."""
    try:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        descriptor = os.open(path, flags)
    except OSError:
        return b""
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return b""
        return handle.read(FILE_BYTES)


def _scan(root: Path, path: str, budget: list[int]) -> _File:
    info = _File(path)
    suffix = Path(path).suffix
    if (suffix != ".py" and suffix not in _CODE) or budget[0] <= 0:
        return info
    data = _head(root / path)
    budget[0] -= len(data)
    source = data.decode("utf-8", "replace")
    try:
        symbols, names = _python(source) if suffix == ".py" else _patterns(source)
    except (SyntaxError, ValueError, RecursionError):
        symbols, names = _patterns(source)
    info.symbols = [s[:LINE_CHARS] for s in symbols]
    info.defines = {n for n in names if len(n) >= 3 and not n.startswith("__")}
    info.uses = set(_IDENT_RE.findall(source))
    return info


def _module_name(path: str) -> str:
    parts = Path(path).with_suffix("").parts
    return (
        parts[-2]
        if parts[-1] in ("__init__", "index", "mod", "main") and len(parts) > 1
        else parts[-1]
    )


def ranked(files: list[_File]) -> list[_File]:
    """Files with symbols, most used by other files first."""
    used_by = Counter(name for f in files for name in f.uses)
    scores = {}
    for f in files:
        names = f.defines | {_module_name(f.path)}
        score = sum(min(used_by[n] - (n in f.uses), 20) for n in names)
        test = "test" in f.path.lower()
        scores[f.path] = score / 2 if test else score
    return sorted((f for f in files if f.symbols), key=lambda f: (-scores[f.path], f.path))


def _tree(paths: list[str], budget: int) -> list[str]:
    folders: dict[str, list[str]] = {}
    for path in paths:
        folder, _, name = path.rpartition("/")
        folders.setdefault(folder or ".", []).append(name)
    lines, used = [], 0
    for number, (folder, names) in enumerate(sorted(folders.items())):
        line = f"{folder}/: " + ", ".join(names)
        if len(line) > LINE_CHARS:
            cut = line[:LINE_CHARS].rsplit(", ", 1)[0]
            line = f"{cut} (+{len(names) - cut.count(', ') - 1} more)"
        if used + len(line) > budget:
            lines.append(f"[{len(folders) - number} more directories: use list_files or glob]")
            break
        lines.append(line)
        used += len(line) + 1
    return lines


def build(root: Path, budget: int) -> str:
    """The map of the checkout at ``root`` in about ``budget`` characters."""
    paths = listed_files(root)
    scan_budget = [TOTAL_BYTES]
    files = [_scan(root, path, scan_budget) for path in paths]
    note = f" (the first {MAX_FILES:,})" if len(paths) >= MAX_FILES else ""
    out = [f"### Files: {len(paths)}{note}, hidden and vendored directories left out"]
    out += _tree(paths, budget // 2)
    out += ["", "### Main symbols, the most used files first"]
    used = sum(len(line) + 1 for line in out)
    order = ranked(files)
    for number, info in enumerate(order):
        shown = info.symbols[:MAX_SYMBOLS]
        more = len(info.symbols) - len(shown)
        block = [info.path, *(f"  {s}" for s in shown)] + ([f"  (+{more} more)"] if more else [])
        size = sum(len(line) + 1 for line in block)
        if used + size > budget:
            out.append(f"[{len(order) - number} more files with symbols: use search or read_file]")
            break
        out += block
        used += size
    return "\n".join(out) + "\n"
