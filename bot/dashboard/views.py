"""GET /tasks and GET /tasks/{owner}/{repo}/{number}: server-rendered, escaped HTML.

``?fragment=1`` answers only the part the page's script replaces every few seconds (the
table body, or the task's details), so the pages refresh without a full reload.
"""

from __future__ import annotations

from datetime import UTC, datetime
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from bot.dashboard.access import DashboardGuard, guarded
from bot.dashboard.model import TaskView
from bot.dashboard.reader import TaskReader
from bot.dashboard.rows import (
    Links,
    money,
    paging,
    row,
    safe_url,
    stamp,
    task_path,
    thousands,
)  # fmt: skip
from bot.dashboard.waves import tree

PAGE_SIZE = 50
STATIC_PATH = "/dashboard/static"
STATIC_TYPES = {"dashboard.js": "text/javascript", "dashboard.css": "text/css"}
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
STATIC_HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "max-age=300"}


def templates() -> Environment:
    env = Environment(
        loader=PackageLoader("bot", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(money=money, stamp=stamp, safe_url=safe_url, thousands=thousands)
    env.globals.update(static=STATIC_PATH)
    return env


def _static_files() -> dict[str, bytes]:
    folder = resources.files("bot") / "templates" / "static"
    return {name: (folder / name).read_bytes() for name in STATIC_TYPES}


class DashboardViews:
    def __init__(self, reader: TaskReader, links: Links, env: Environment | None = None) -> None:
        self._reader = reader
        self._links = links
        self._env = env or templates()
        self._static = _static_files()

    def _render(self, name: str, **context: Any) -> Response:
        html = self._env.get_template(name).render(**context)
        return HTMLResponse(html, headers=HEADERS)

    async def task_list(self, request: Request) -> Response:
        where = paging(request.query_params.get("page"), await self._reader.count(), PAGE_SIZE)
        now = datetime.now(UTC)
        tasks = await self._reader.tasks(where.start, where.size)
        rows = [row(task, self._links, now) for task in tasks]
        name = "task_rows.html" if request.query_params.get("fragment") else "tasks.html"
        return self._render(name, rows=rows, paging=where)

    async def task_page(self, request: Request) -> Response:
        params = request.path_params
        repo, number = f"{params['owner']}/{params['repo']}", int(params["number"])
        task = await self._reader.get(f"{repo.lower()}#{number}")
        if task is None:
            response = self._render("task_missing.html", repo=repo, number=number)
            response.status_code = 404
            return response
        name = "task_body.html" if request.query_params.get("fragment") else "task.html"
        marks = await self._reader.marks(task.key)
        return self._render(
            name, task=task, marks=marks, issue_url=self._links.issue(task),
            pr_url=self._links.pr(task, marks), task_url=task_path(task.repo, task.issue),
            waves=await self._waves(task),
        )  # fmt: skip

    async def _waves(self, task: TaskView) -> list[str]:
        walk = task.workflow.walk
        if not walk.waves:
            return []
        wave = walk.waves[min(walk.current, len(walk.waves) - 1)]
        ids = [s.id for s in wave.subtasks]
        live = await self._reader.subtask_statuses(task.key, wave.number, wave.attempt, ids)
        return tree(walk, live)

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in self._static:
            return Response("not found", status_code=404)
        return Response(self._static[name], media_type=STATIC_TYPES[name], headers=STATIC_HEADERS)


def dashboard_routes(views: DashboardViews, guard: DashboardGuard) -> list[Route]:
    return [
        Route("/tasks", guarded(guard, views.task_list), methods=["GET"]),
        Route(
            "/tasks/{owner}/{repo}/{number:int}", guarded(guard, views.task_page), methods=["GET"]
        ),
        Route(f"{STATIC_PATH}/{{name}}", views.static, methods=["GET"]),
    ]
