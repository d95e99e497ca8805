"""A fake GitHub speaking HTTP on a loopback port: REST, GraphQL and smart-HTTP git.

    fake = FakeGitHub(app_id=1, public_key_pem=pem, clock=clock, root=tmp_path)
    with fake:                                   # uvicorn in a background thread
        fake.add_repo("octo/hello", files={"README.md": "hi"})
        fake.add_issue("octo/hello", 22, "Add a greeting")
        fake.set_role("octo/hello", "alice", "write")
        ... point the bot at fake.url (REST/GraphQL) and fake.git_url("octo/hello") ...
        fake.count_by_route()                   # Counter of "METHOD /template"

Like GitHub it checks the App JWT (RS256 against the App's public key, ``iat``/``exp``
against the fake's clock) and installation tokens (unknown or expired: 401), for git too.
Faults: :meth:`fail` (5xx, 403 with ``retry-after``, ...) and :meth:`slow`.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any, Protocol

import jwt
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes import git_http
from tests.fakes import github_data as data
from tests.fakes.github_routes import ROUTES, HttpError
from tests.fakes.github_state import Comment, Fault, Recorded, Repo
from tests.fakes.threaded import ThreadedServer


class Clock(Protocol):
    def now(self) -> float: ...


class FakeGitHub:
    def __init__(
        self,
        *,
        app_id: int,
        public_key_pem: str,
        clock: Clock,
        root: Path,
        bot_login: str = "agentium[bot]",
        token_lifetime_s: float = 3600.0,
    ) -> None:
        self.app_id = app_id
        self._public_key = public_key_pem
        self.clock = clock
        self.root = root / "git"
        self.root.mkdir(parents=True, exist_ok=True)
        self.bot_login = bot_login
        self.token_lifetime_s = token_lifetime_s
        self.repos: dict[str, Repo] = {}
        self.installations: set[int] = set()
        self.tokens: dict[str, tuple[int, float]] = {}
        self.requests: list[Recorded] = []
        self.faults: list[Fault] = []
        self._ids = itertools.count(1001)
        self._lock = threading.Lock()
        self.url = ""
        self._server: ThreadedServer | None = None

    # setting up

    def add_installation(self, installation_id: int) -> None:
        self.installations.add(installation_id)

    def add_repo(
        self,
        full_name: str,
        *,
        files: dict[str, str] | None = None,
        private: bool = False,
        drafts: bool = True,
        default_branch: str = "main",
    ) -> Path:
        repo = Repo(full_name, private=private, drafts=drafts, default_branch=default_branch)
        self.repos[full_name.lower()] = repo
        return git_http.init_bare(
            self.root, full_name, default_branch, files or {"README.md": "hello\n"}
        )

    def add_issue(self, full_name: str, number: int, title: str, body: str = "") -> None:
        self.repos[full_name.lower()].issues[number] = {"title": title, "body": body}

    def set_role(self, full_name: str, user: str, role: str) -> None:
        """``admin``, ``maintain``, ``write``, ``triage`` or ``read``."""
        self.repos[full_name.lower()].roles[user] = role

    def fail(
        self,
        status: int,
        *,
        times: int = 1,
        method: str | None = None,
        path: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Fault:
        fault = Fault(status, times, method, path, headers or {})
        self.faults.append(fault)
        return fault

    def slow(self, seconds: float, *, times: int = 1, path: str | None = None) -> Fault:
        fault = Fault(0, times, None, path, {}, seconds)
        self.faults.append(fault)
        return fault

    # looking at what happened

    def git_url(self, full_name: str) -> str:
        return f"{self.url}/{full_name}.git"

    def bare_path(self, full_name: str) -> Path:
        return self.root / f"{full_name}.git"

    def branch_sha(self, full_name: str, branch: str) -> str | None:
        return git_http.rev_parse(self.bare_path(full_name), f"refs/heads/{branch}")

    def repo(self, full_name: str) -> Repo:
        return self.repos[full_name.lower()]

    def comments(self, full_name: str, number: int) -> list[Comment]:
        return [c for c in self.repo(full_name).comments.values() if c.number == number]

    def api_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.auth != "git"]

    def count_by_route(self, *, include_git: bool = False) -> Counter[str]:
        return Counter(r.route for r in self.requests if include_git or r.auth != "git")

    def calls(self, method: str, route: str) -> list[Recorded]:
        return [r for r in self.requests if r.route == f"{method} {route}"]

    # helpers for the handlers

    def next_id(self) -> int:
        return next(self._ids)

    def comment_json(self, repo: Repo, c: Comment) -> dict[str, Any]:
        body = data.comment(self.url, repo.full_name, c.number, c.id, c.body, c.author, c.created)
        body["updated_at"] = data.iso(c.updated)
        return body

    # authentication, as GitHub does it

    def _check_jwt(self, header: str) -> bool:
        if not header.startswith("Bearer "):
            return False
        try:
            claims = jwt.decode(
                header[7:],
                self._public_key,
                algorithms=["RS256"],
                options={"verify_exp": False, "verify_iat": False},
            )
        except jwt.InvalidTokenError:
            return False
        now = self.clock.now()
        iat, exp = int(claims.get("iat", 0)), int(claims.get("exp", 0))
        fresh = iat <= now + 60 and now < exp and exp - iat <= 600
        return fresh and str(claims.get("iss")) == str(self.app_id)

    def _check_token(self, value: str) -> bool:
        found = self.tokens.get(value)
        return found is not None and self.clock.now() < found[1]

    def _authenticated(self, kind: str, header: str) -> bool:
        if kind == "none":
            return True
        if kind == "app":
            return self._check_jwt(header)
        if kind == "git":
            if not header.startswith("Basic "):
                return False
            user, _, secret = base64.b64decode(header[6:]).decode().partition(":")
            return user == "x-access-token" and self._check_token(secret)
        scheme, _, value = header.partition(" ")
        return scheme.lower() in ("token", "bearer") and self._check_token(value)

    # the HTTP side

    def _fault(self, method: str, path: str, git: bool) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if (fault.path is not None or not git) and fault.matches(method, path):
                    fault.times -= 1
                    return fault
        return None

    def _record(self, request: Request, route: str, status: int, auth: str, body: Any) -> None:
        self.requests.append(
            Recorded(
                request.method, request.url.path, route, request.url.query, status, auth, body,
                request.client.port if request.client else None,
            )
        )  # fmt: skip

    async def _handle(self, request: Request, route: str, auth: str, handler: Any) -> Response:
        raw = await request.body()
        body = json.loads(raw) if raw and auth != "git" else None
        fault = self._fault(request.method, request.url.path, auth == "git")
        if fault is not None and fault.delay_s:
            await asyncio.sleep(fault.delay_s)
        if fault is not None and fault.status:
            self._record(request, route, fault.status, auth, body)
            return JSONResponse(
                data.error(fault.message, fault.status), fault.status, headers=fault.headers
            )
        if not self._authenticated(auth, request.headers.get("authorization", "")):
            self._record(request, route, 401, auth, body)
            extra = {"WWW-Authenticate": 'Basic realm="GitHub"'} if auth == "git" else {}
            return JSONResponse(data.error("Bad credentials", 401), 401, headers=extra)
        if auth == "git":
            p = request.path_params
            answer = await git_http.serve(
                self.root, f"/{p['owner']}/{p['repo']}.git/{p['rest']}", request, raw
            )
            self._record(request, route, answer.status_code, auth, None)
            return answer
        headers: dict[str, str] = {}
        try:
            with self._lock:
                status, payload, *more = handler(
                    self, dict(request.path_params), body or {}, dict(request.query_params)
                )
            headers = more[0] if more else {}  # a handler may add headers (a Link)
        except HttpError as error:
            status, payload = error.status, error.body
        self._record(request, route, status, auth, body)
        return JSONResponse(payload, status, headers=headers)

    def _route(self, method: str, template: str, auth: str, handler: Any) -> Route:
        route = f"{method} {template}"

        async def endpoint(request: Request) -> Response:
            return await self._handle(request, route, auth, handler)

        return Route(template, endpoint, methods=[method])

    def app(self) -> Starlette:
        routes = [self._route(*spec) for spec in ROUTES]
        git = "/{owner}/{repo}.git/{rest:path}"
        routes += [self._route(method, git, "git", None) for method in ("GET", "POST")]
        return Starlette(routes=routes)

    def start(self) -> FakeGitHub:
        config = uvicorn.Config(self.app(), log_level="warning", lifespan="off", access_log=False)
        self._server = ThreadedServer(config, "the fake GitHub")
        self.url = self._server.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()
