"""Smart-HTTP git for the fake GitHub: ``git http-backend`` run as a CGI per request.

Bare repositories live under one root as ``OWNER/NAME.git``; the fake authenticates the
request (``Authorization: Basic x-access-token:TOKEN``) before it gets here.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response


def init_bare(root: Path, full_name: str, default_branch: str, files: dict[str, str]) -> Path:
    """A bare repository with one commit holding ``files`` on ``default_branch``."""
    bare = root / f"{full_name}.git"
    seed = root / ".seed" / full_name
    seed.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (seed / name).parent.mkdir(parents=True, exist_ok=True)
        (seed / name).write_text(text)
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "Octo Cat",
        "GIT_AUTHOR_EMAIL": "octocat@example.com",
        "GIT_COMMITTER_NAME": "Octo Cat",
        "GIT_COMMITTER_EMAIL": "octocat@example.com",
    }

    def git(*args: str, cwd: Path) -> None:
        subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", default_branch, cwd=seed)
    git("add", "-A", cwd=seed)
    git("commit", "-q", "-m", "initial commit", cwd=seed)
    bare.parent.mkdir(parents=True, exist_ok=True)
    git("clone", "-q", "--bare", str(seed), str(bare), cwd=root)
    return bare


def rev_parse(bare: Path, ref: str) -> str | None:
    done = subprocess.run(
        ["git", "rev-parse", "--verify", "-q", ref],
        cwd=bare,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or None


async def serve(root: Path, path_info: str, request: Request, body: bytes) -> Response:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_PROJECT_ROOT": str(root),
        "GIT_HTTP_EXPORT_ALL": "1",
        "PATH_INFO": path_info,
        "REQUEST_METHOD": request.method,
        "QUERY_STRING": request.url.query,
        "CONTENT_TYPE": request.headers.get("content-type", ""),
        "CONTENT_LENGTH": str(len(body)),
        "REMOTE_USER": "x-access-token",
        "REMOTE_ADDR": "127.0.0.1",
    }
    for header, name in (
        ("content-encoding", "HTTP_CONTENT_ENCODING"),
        ("git-protocol", "HTTP_GIT_PROTOCOL"),
    ):
        if header in request.headers:
            env[name] = request.headers[header]
    done = await run_in_threadpool(
        subprocess.run,
        ["git", "http-backend"],
        input=body,
        env=env,
        capture_output=True,
        check=False,
    )
    head, _, content = done.stdout.partition(b"\r\n\r\n")
    status, headers = 200, {}
    for line in head.decode("latin-1").split("\r\n"):
        name, _, value = line.partition(":")
        if name.lower() == "status":
            status = int(value.strip().split()[0])
        elif name:
            headers[name.strip()] = value.strip()
    return Response(content, status_code=status, headers=headers)
