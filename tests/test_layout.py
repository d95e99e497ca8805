"""Architecture rules that a refactor could silently break."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).parent.parent
PACKAGES = ("bot", "workers", "config")
KEY_MODULE = ROOT / "config" / "keys.py"
# The controller is pure: it may import these and itself, nothing that does I/O.
PURE_IMPORTS = {
    "__future__",
    "collections",
    "collections.abc",
    "dataclasses",
    "datetime",
    "difflib",
    "enum",
    "functools",
    "hashlib",
    "itertools",
    "math",
    "re",
    "typing",
    "pydantic",
}
# Redis commands whose first argument is a key.
REDIS_COMMANDS = {
    "get", "set", "setex", "setnx", "delete", "exists", "expire", "ttl", "incr", "incrby",
    "hget", "hset", "hgetall", "hmget", "hdel", "hincrby", "lpush", "rpush", "lrange",
    "llen", "lindex", "lrem", "ltrim", "sadd", "srem", "sismember", "smembers", "zadd",
    "zrem", "zcard", "zrange", "zrevrange", "zscore", "blmove", "lock", "mget", "scan_iter",
}  # fmt: skip
# GitHub label names that look like keys but are not Redis keys.
LABEL_NAMES = {"agentium:working", "agentium:done", "agentium:blocked"}
KEYLIKE = re.compile(r"^(agentium|rq):[A-Za-z_-]+")


def modules(*packages: str) -> Iterator[Path]:
    for package in packages:
        yield from sorted((ROOT / package).rglob("*.py"))


def imported(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module


def test_web_side_never_imports_worker_code() -> None:
    code = (
        "import sys, bot.app, bot.webhooks, bot.dispatch, bot.events;"
        "leaked = sorted(m for m in sys.modules if m == 'workers' or m.startswith('workers.'));"
        "print(','.join(leaked))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""


def test_bot_and_config_import_nothing_from_workers() -> None:
    for path in modules("bot", "config"):
        found = [name for name in imported(path) if name.split(".")[0] == "workers"]
        assert not found, f"{path.relative_to(ROOT)} imports {found}"


def test_the_controller_imports_nothing_with_io() -> None:
    for path in modules("workers/controller"):
        for name in imported(path):
            ok = name.startswith("workers.controller") or name.split(".")[0] in PURE_IMPORTS
            assert ok or name in PURE_IMPORTS, f"{path.relative_to(ROOT)} imports {name}"


def test_no_module_grows_past_300_lines() -> None:
    for path in modules(*PACKAGES):
        lines = len(path.read_text().splitlines())
        assert lines <= 300, f"{path.relative_to(ROOT)} has {lines} lines"


def _literal_text(node: ast.expr) -> str | None:
    """The text a key argument starts with, when it is written out in place."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant)) or "{}"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        return _literal_text(node.left)
    return None


def _on_redis(func: ast.expr) -> bool:
    """A Redis command called on something named like a Redis client or pipeline."""
    if not isinstance(func, ast.Attribute) or func.attr not in REDIS_COMMANDS:
        return False
    owner = func.value
    name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
    return any(word in name.lower() for word in ("redis", "pipe", "client", "conn"))


def _key_problem(node: ast.AST) -> str | None:
    """Why ``node`` spells a Redis key in place, or None."""
    if isinstance(node, ast.ImportFrom) and node.module == "config.keys":
        private = [a.name for a in node.names if a.name.endswith("PREFIX")]
        return f"imports {private}" if private else None
    keys_attr = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
    if keys_attr and node.value.id == "keys" and node.attr.endswith("PREFIX"):  # type: ignore[attr-defined]
        return f"uses keys.{node.attr}"  # type: ignore[attr-defined]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        keylike = KEYLIKE.match(node.value) and node.value not in LABEL_NAMES
        return f"spells {node.value!r}" if keylike else None
    if isinstance(node, ast.Call) and _on_redis(node.func) and node.args:
        text = _literal_text(node.args[0])
        namespaced = text is not None and ":" in text  # as Redis keys are
        return f"{node.func.attr}({text!r}...)" if namespaced else None  # type: ignore[attr-defined]
    return None


def test_no_redis_key_is_spelled_outside_the_key_module() -> None:
    problems = []
    for path in modules("bot", "workers", "config"):
        if path == KEY_MODULE:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            problem = _key_problem(node)
            if problem:
                problems.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)} {problem}")
    assert problems == []


def test_the_key_rule_catches_an_inline_key(tmp_path: Path) -> None:
    """The check above is not vacuous: it finds each way of spelling a key in place."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from config.keys import PREFIX\n"
        "def f(redis, key):\n"
        "    redis.get(f'{PREFIX}:task:{key}')\n"
        "    redis.set('agentium:thing', 1)\n"
    )
    tree = ast.parse(sample.read_text())
    found = [problem for node in ast.walk(tree) if (problem := _key_problem(node))]
    assert found == [
        "imports ['PREFIX']",
        "get(':task:'...)",
        "set('agentium:thing'...)",
        "spells 'agentium:thing'",
    ]
    assert not KEYLIKE.match("agentium/issue-1")


def test_the_readme_lists_every_package() -> None:
    readme = (ROOT / "README.md").read_text()
    packages = [p for p in (ROOT / "workers").iterdir() if (p / "__init__.py").is_file()]
    missing = [p.name for p in packages if f"| `workers/{p.name}/` |" not in readme]
    assert missing == [], f"the README's architecture table lacks {missing}"
