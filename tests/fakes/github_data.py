"""Response bodies for the fake GitHub, built from GitHub's own examples in the corpus.

Each builder copies a corpus example (``tests/corpus/github-rest/``, from @octokit/openapi,
MIT) and overrides the fields the fake's state decides (ids, numbers, bodies, URLs).
The examples predate API version 2026-03-10, which githubkit 0.16 speaks: :func:`upgrade`
adds the fields that version requires (``archived_at``/``archived_by`` on labels, ``type``
on teams, ``role_name`` on collaborators). The check run has no corpus example; it is
assembled from the corpus' App (``apps-get-authenticated``) and the documented fields.
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

REST = Path(__file__).parent.parent / "corpus" / "github-rest"
WEB = "https://github.com"


@cache
def _example(name: str) -> Any:
    return json.loads((REST / name).read_text())


def example(name: str) -> Any:
    """A fresh, upgraded copy of a corpus example."""
    return upgrade(copy.deepcopy(_example(name)))


def upgrade(data: Any) -> Any:
    if isinstance(data, list):
        return [upgrade(item) for item in data]
    if not isinstance(data, dict):
        return data
    if {"color", "default", "name"} <= data.keys():
        data.setdefault("archived_at", None)
        data.setdefault("archived_by", None)
    if {"slug", "privacy", "members_url"} <= data.keys():
        data.setdefault("type", "organization")
    for key, value in data.items():
        data[key] = upgrade(value)
    return data


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def user(login: str, kind: str = "User") -> dict[str, Any]:
    data: dict[str, Any] = example("issues-create-comment.201.json")["user"]
    data.update(login=login, type=kind, html_url=f"{WEB}/{login}")
    data["url"] = f"https://api.github.com/users/{login}"
    return data


def comment(
    api: str, repo: str, number: int, comment_id: int, body: str, author: str, ts: float
) -> dict[str, Any]:
    data: dict[str, Any] = example("issues-create-comment.201.json")
    data.update(
        id=comment_id,
        node_id=f"IC_{comment_id}",
        url=f"{api}/repos/{repo}/issues/comments/{comment_id}",
        html_url=f"{WEB}/{repo}/issues/{number}#issuecomment-{comment_id}",
        issue_url=f"{api}/repos/{repo}/issues/{number}",
        body=body,
        user=user(author, "Bot" if author.endswith("[bot]") else "User"),
        created_at=iso(ts),
        updated_at=iso(ts),
    )
    return data


def issue(api: str, repo: str, number: int, title: str, body: str, labels: list[str]) -> Any:
    data = example("issues-get.200.json")
    data.update(
        id=number * 1000,
        number=number,
        title=title,
        body=body,
        url=f"{api}/repos/{repo}/issues/{number}",
        html_url=f"{WEB}/{repo}/issues/{number}",
        labels=[label(api, repo, name) for name in labels],
        pull_request=None,
    )
    data.pop("pull_request")
    return data


def label(api: str, repo: str, name: str, color: str = "ededed", description: str = "") -> Any:
    data = example("issues-add-labels.200.json")[0]
    data.update(
        id=abs(hash((repo, name))) % 10**9,
        name=name,
        color=color,
        description=description,
        default=False,
        url=f"{api}/repos/{repo}/labels/{name}",
    )
    return data


def pull(api: str, repo: str, pr: dict[str, Any], simple: bool = False) -> Any:
    data = example("pulls-list.200.json")[0] if simple else example("pulls-create.201.json")
    number = pr["number"]
    data.update(
        id=number * 10,
        node_id=pr["node_id"],
        number=number,
        title=pr["title"],
        body=pr["body"],
        draft=pr["draft"],
        state="open",
        labels=[],
        requested_teams=[],
        requested_reviewers=[user(login) for login in pr["reviewers"]],
        url=f"{api}/repos/{repo}/pulls/{number}",
        html_url=f"{WEB}/{repo}/pull/{number}",
        issue_url=f"{api}/repos/{repo}/issues/{number}",
        user=user(pr["author"], "Bot"),
    )
    data["head"].update(
        ref=pr["head"], sha=pr["head_sha"], label=f"{repo.split('/')[0]}:{pr['head']}"
    )
    data["base"].update(ref=pr["base"])
    return data


def reaction(reaction_id: int, content: str, who: str) -> Any:
    data = example("reactions-create-for-issue-comment.201.json")
    data.update(id=reaction_id, content=content, user=user(who, "Bot"))
    return data


def permission(login: str, role: str) -> Any:
    data = example(
        "repos-get-collaborator-permission-level.200.response-if-user-has-admin-permissions.json"
    )
    legacy = {"maintain": "write", "triage": "read"}.get(role, role)
    data.update(permission=legacy, role_name=role)
    data["user"].update(login=login, role_name=role)
    return data


def token(value: str, expires_at: float) -> Any:
    data = example("apps-create-installation-access-token.201.json")
    data.update(token=value, expires_at=iso(expires_at))
    return data


def check_run(api: str, repo: str, run: dict[str, Any]) -> dict[str, Any]:
    output = run.get("output") or {}
    run_id = run["id"]
    return {
        "id": run_id,
        "node_id": f"CR_{run_id}",
        "head_sha": run["head_sha"],
        "external_id": "",
        "url": f"{api}/repos/{repo}/check-runs/{run_id}",
        "html_url": f"{WEB}/{repo}/runs/{run_id}",
        "details_url": run.get("details_url"),
        "status": run["status"],
        "conclusion": run.get("conclusion"),
        "started_at": iso(run["started_at"]),
        "completed_at": iso(run["completed_at"]) if run.get("completed_at") else None,
        "output": {
            "title": output.get("title"),
            "summary": output.get("summary"),
            "text": output.get("text"),
            "annotations_count": 0,
            "annotations_url": f"{api}/repos/{repo}/check-runs/{run_id}/annotations",
        },
        "name": run["name"],
        "check_suite": {"id": run_id + 5000},
        "app": example("apps-get-authenticated.200.json"),
        "pull_requests": [],
    }


def app(app_id: int, slug: str) -> Any:
    """``GET /app``: the authenticated App, as the corpus example with its id and slug."""
    data: dict[str, Any] = example("apps-get-authenticated.200.json")
    data.update(id=app_id, slug=slug, name=slug, html_url=f"{WEB}/apps/{slug}")
    return data


def error(message: str, status: int, errors: list[dict[str, Any]] | None = None) -> Any:
    body: dict[str, Any] = {
        "message": message,
        "documentation_url": "https://docs.github.com/rest",
        "status": str(status),
    }
    if errors is not None:
        body["errors"] = errors
    return body
