"""The repository map: files, main symbols (Python by ast, others by patterns), ranked."""

from __future__ import annotations

import os
from pathlib import Path

from workers.agents.repomap import build
from workers.agents.taskfiles import TaskFiles

CORE = '''"""The core."""


class Engine:
    def start(self) -> None: ...

    def _hidden(self) -> None: ...


def helper(a, b):
    return a + b
'''
USER = "from pkg.core import Engine, helper\n\nEngine().start()\nhelper(1, 2)\n"
TS = "export function render(view) {\n}\nexport class Widget {\n}\nconst local = 1\n"
GO = "package main\n\ntype Server struct {}\n\nfunc (s *Server) Serve() {}\n\nfunc main() {}\n"


def make_repo(root: Path) -> Path:
    files = {
        "pkg/core.py": CORE,
        "pkg/lonely.py": "def unused_function():\n    pass\n",
        "pkg/a.py": USER,
        "pkg/b.py": USER,
        "web/app.ts": TS,
        "cmd/server.go": GO,
        "broken.py": "def ok():\n    pass\ndef broken(:\n",
        "node_modules/dep/index.js": "function vendored_code() {}\n",
        ".hidden/x.py": "def secret(): pass\n",
        "README.md": "# Demo\n",
    }
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content)
    return root


def test_the_map_lists_files_and_symbols_ranked_by_use(tmp_path: Path) -> None:
    text = build(make_repo(tmp_path), 5000)
    files, symbols = text.split("### Main symbols")
    assert "pkg/: a.py, b.py, core.py, lonely.py" in files
    assert "node_modules" not in text and ".hidden" not in text and "vendored_code" not in text
    assert "class Engine: start" in symbols and "_hidden" not in symbols
    assert "def helper(a, b)" in symbols
    assert "export function render(view)" in symbols and "export class Widget" in symbols
    assert "type Server struct" in symbols and "func (s *Server) Serve()" in symbols
    assert "def ok():" in symbols and "def broken(:" in symbols  # ast fails: line patterns
    order = [line for line in symbols.splitlines() if line and not line.startswith(" ")]
    assert order.index("pkg/core.py") < order.index("pkg/lonely.py")


def test_the_map_keeps_to_its_budget_and_says_what_it_left_out(tmp_path: Path) -> None:
    for n in range(200):
        (tmp_path / f"m{n:03}.py").write_text(f"def function_{n}(x):\n    return x\n")
    text = build(tmp_path, 3000)
    assert len(text) <= 3300
    assert "more files with symbols: use search or read_file]" in text


def test_the_map_is_built_once_per_task(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    files = TaskFiles(tmp_path / "state")
    first = files.repo_map(repo, 5000)
    (repo / "pkg" / "new.py").write_text("def later(): pass\n")
    assert files.repo_map(repo, 5000) == first


def test_links_and_fifos_are_listed_but_never_read(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    secret = tmp_path / "secret.py"
    secret.write_text("def leaked_secret_function(): pass\n")
    (repo / "link.py").symlink_to(secret)
    os.mkfifo(repo / "pipe.py")
    text = build(repo, 5000)  # returns: the FIFO is not opened for a blocking read
    assert "link.py" in text and "pipe.py" in text
    assert "leaked_secret_function" not in text
