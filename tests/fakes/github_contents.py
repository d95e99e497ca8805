"""`GET /repos/{owner}/{repo}/contents/{path}?ref=` of the fake GitHub, read from the bare repo.

Answers like GitHub's JSON media type: a file as base64 (wrapped at 60 characters), a
directory as a list of entries, a symlink or submodule as its object; 404 for an unknown
repository, ref or path; 403 ``too_large`` for a file over 1 MB.
"""

from __future__ import annotations

import base64
import subprocess
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.fakes import github_data as data

if TYPE_CHECKING:
    from tests.fakes.github import FakeGitHub

Answer = tuple[int, Any]
MAX_BLOB = 1024 * 1024
_TYPES = {"blob": "file", "tree": "dir", "commit": "submodule"}


def _git(bare: Path, *args: str) -> bytes:
    done = subprocess.run(["git", *args], cwd=bare, capture_output=True, check=False)
    return done.stdout if done.returncode == 0 else b""


def _entries(bare: Path, commit: str, path: str, inside: bool) -> list[dict[str, Any]]:
    """``git ls-tree -l`` of ``path`` itself, or (``inside``) of what the directory holds."""
    spec = [f"{path}/" if inside else path] if path else []
    out = _git(bare, "ls-tree", "-l", "-z", commit, "--", *spec)
    found = []
    for record in filter(None, out.split(b"\0")):
        meta, _, name = record.decode().partition("\t")
        mode, kind, sha, size = meta.split()
        kind = "symlink" if mode == "120000" else _TYPES[kind]
        found.append(
            {"path": name, "type": kind, "sha": sha, "size": 0 if size == "-" else int(size)}
        )
    return found


def _item(fake: FakeGitHub, full: str, ref: str, entry: dict[str, Any]) -> dict[str, Any]:
    path = entry["path"]
    url = f"{fake.url}/repos/{full}/contents/{path}?ref={ref}"
    tree = entry["type"] == "dir"
    git_url = f"{fake.url}/repos/{full}/git/{'trees' if tree else 'blobs'}/{entry['sha']}"
    html_url = f"{data.WEB}/{full}/{'tree' if tree else 'blob'}/{ref}/{path}"
    raw = f"https://raw.githubusercontent.com/{full}/{ref}/{path}"
    return {
        **entry,
        "name": path.rsplit("/", 1)[-1],
        "url": url,
        "git_url": git_url,
        "html_url": html_url,
        "download_url": raw if entry["type"] == "file" else None,
        "_links": {"self": url, "git": git_url, "html": html_url},
    }


def get_contents(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = fake.repos.get(f"{p['owner']}/{p['repo']}".lower())
    if repo is None:
        return 404, data.error("Not Found", 404)
    ref = q.get("ref") or repo.default_branch
    bare = fake.bare_path(repo.full_name)
    commit = _git(bare, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}").decode().strip()
    if not commit:
        return 404, data.error(f"No commit found for the ref {ref}", 404)
    path = p.get("path", "").strip("/")
    found = _entries(bare, commit, path, inside=False) if path else []
    if path and not found:
        return 404, data.error("Not Found", 404)
    if not path or found[0]["type"] == "dir":
        items = _entries(bare, commit, path, inside=True)
        return 200, [_item(fake, repo.full_name, ref, e) for e in items]
    entry = found[0]
    answer = _item(fake, repo.full_name, ref, entry)
    if entry["type"] == "symlink":
        return 200, {**answer, "target": _git(bare, "cat-file", "blob", entry["sha"]).decode()}
    if entry["type"] == "submodule":
        return 200, {**answer, "submodule_git_url": f"{data.WEB}/{repo.full_name}-sub.git"}
    if entry["size"] > MAX_BLOB:
        errors = [{"resource": "Blob", "field": "data", "code": "too_large"}]
        return 403, data.error("This API returns blobs up to 1 MB in size.", 403, errors)
    content = base64.b64encode(_git(bare, "cat-file", "blob", entry["sha"])).decode()
    wrapped = "\n".join(textwrap.wrap(content, 60)) + "\n" if content else ""
    return 200, {**answer, "content": wrapped, "encoding": "base64"}
