"""REST and GraphQL handlers of the fake GitHub: `(fake, params, body, query) -> (status, json)`."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from tests.fakes import github_data as data
from tests.fakes.github_contents import get_contents
from tests.fakes.github_deliveries import list_deliveries, redeliver
from tests.fakes.github_graphql import graphql
from tests.fakes.github_manifest import convert as convert_manifest
from tests.fakes.github_state import Comment, Pull, Repo

if TYPE_CHECKING:
    from tests.fakes.github import FakeGitHub

Answer = tuple[int, Any]


class HttpError(Exception):
    def __init__(self, status: int, message: str, errors: list[dict[str, Any]] | None = None):
        super().__init__(message)
        self.status = status
        self.body = data.error(message, status, errors)


def _repo(fake: FakeGitHub, p: dict[str, str]) -> Repo:
    repo = fake.repos.get(f"{p['owner']}/{p['repo']}".lower())
    if repo is None:
        raise HttpError(404, "Not Found")
    return repo


def _number(repo: Repo, value: str) -> int:
    number = int(value)
    if number not in repo.issues and number not in repo.pulls:
        raise HttpError(404, "Not Found")
    return number


def get_app(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    return 200, data.app(fake.app_id, fake.bot_login.removesuffix("[bot]"))


def mint_token(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    installation = int(p["installation_id"])
    if installation not in fake.installations:
        raise HttpError(404, "Not Found")
    value = "ghs_" + secrets.token_urlsafe(27)
    expires = fake.clock.now() + fake.token_lifetime_s
    fake.tokens[value] = (installation, expires)
    return 201, data.token(value, expires)


def get_issue(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    number = int(p["issue_number"])
    if number not in repo.issues:
        raise HttpError(404, "Not Found")
    found = repo.issues[number]
    labels = repo.issue_labels.get(number, [])
    return 200, data.issue(fake.url, repo.full_name, number, found["title"], found["body"], labels)


def list_comments(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    number = _number(repo, p["issue_number"])
    mine = [c for c in repo.comments.values() if c.number == number]
    per_page, page = int(q.get("per_page", 30)), int(q.get("page", 1))
    chosen = mine[(page - 1) * per_page : page * per_page]
    return 200, [fake.comment_json(repo, c) for c in chosen]


def create_comment(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    number = _number(repo, p["issue_number"])
    text = str(body.get("body", ""))
    if len(text) > 65_536:
        raise HttpError(
            422,
            "Validation Failed",
            [
                {
                    "resource": "IssueComment",
                    "code": "custom",
                    "field": "body",
                    "message": "body is too long (maximum is 65536 characters)",
                }
            ],
        )
    now = fake.clock.now()
    comment = Comment(fake.next_id(), number, text, fake.bot_login, now, now)
    repo.comments[comment.id] = comment
    return 201, fake.comment_json(repo, comment)


def update_comment(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    comment = repo.comments.get(int(p["comment_id"]))
    if comment is None:
        raise HttpError(404, "Not Found")
    comment.body, comment.updated = str(body.get("body", "")), fake.clock.now()
    return 200, fake.comment_json(repo, comment)


def create_label(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    name = str(body["name"])
    if name.lower() in {n.lower() for n in repo.labels}:
        raise HttpError(
            422,
            "Validation Failed",
            [{"resource": "Label", "code": "already_exists", "field": "name"}],
        )
    repo.labels[name] = {
        "color": body.get("color", "ededed"),
        "description": body.get("description", ""),
    }
    return 201, data.label(fake.url, repo.full_name, name, **repo.labels[name])


def add_labels(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    number = _number(repo, p["issue_number"])
    names = body["labels"] if isinstance(body, dict) else body
    current = repo.issue_labels.setdefault(number, [])
    for name in names:
        repo.labels.setdefault(name, {"color": "ededed", "description": ""})
        if name not in current:
            current.append(name)
    return 200, [data.label(fake.url, repo.full_name, n, **repo.labels[n]) for n in current]


def remove_label(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    number = _number(repo, p["issue_number"])
    current = repo.issue_labels.setdefault(number, [])
    if p["name"] not in current:
        raise HttpError(404, "Label does not exist")
    current.remove(p["name"])
    return 200, [data.label(fake.url, repo.full_name, n, **repo.labels[n]) for n in current]


def add_reaction(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    target = int(p.get("comment_id") or _number(repo, p["issue_number"]))
    seen = repo.reactions.setdefault(target, [])
    mine = (fake.bot_login, str(body["content"]))
    status = 200 if mine in seen else 201
    if status == 201:
        seen.append(mine)
    return status, data.reaction(seen.index(mine) + 1, mine[1], fake.bot_login)


def permission(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    if p["username"] not in repo.roles:
        raise HttpError(404, "Not Found")
    return 200, data.permission(p["username"], repo.roles[p["username"]])


def list_pulls(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    owner = repo.full_name.split("/")[0]
    found = [
        pr
        for pr in repo.pulls.values()
        if q.get("state", "open") in (pr.state, "all")
        and (not q.get("head") or q["head"] == f"{owner}:{pr.head}")
    ]
    return 200, [data.pull(fake.url, repo.full_name, pr.as_dict(), simple=True) for pr in found]


def get_pull(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    pr = repo.pulls.get(int(p["pull_number"]))
    if pr is None:
        raise HttpError(404, "Not Found")
    return 200, data.pull(fake.url, repo.full_name, pr.as_dict())


def create_pull(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    head, base = str(body["head"]).split(":")[-1], str(body["base"])
    sha = fake.branch_sha(repo.full_name, head)
    if sha is None:
        raise HttpError(
            422,
            "Validation Failed",
            [{"resource": "PullRequest", "code": "invalid", "field": "head"}],
        )
    if any(pr.head == head and pr.state == "open" for pr in repo.pulls.values()):
        raise HttpError(
            422,
            "Validation Failed",
            [
                {
                    "resource": "PullRequest",
                    "code": "custom",
                    "message": f"A pull request already exists for {head}.",
                }
            ],
        )
    draft = bool(body.get("draft", False))
    if draft and not repo.drafts:
        raise HttpError(
            422,
            "Validation Failed",
            [
                {
                    "resource": "PullRequest",
                    "code": "custom",
                    "message": "Draft pull requests are not supported in this repository.",
                }
            ],
        )
    number = repo.next_number()
    pr = Pull(
        number,
        f"PR_{number}x{secrets.token_hex(4)}",
        str(body["title"]),
        str(body.get("body") or ""),
        head,
        base,
        sha,
        draft,
        fake.bot_login,
    )
    repo.pulls[number] = pr
    return 201, data.pull(fake.url, repo.full_name, pr.as_dict())


def update_pull(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    pr = repo.pulls.get(int(p["pull_number"]))
    if pr is None:
        raise HttpError(404, "Not Found")
    pr.title = str(body.get("title", pr.title))
    pr.body = str(body.get("body", pr.body))  # like GitHub, ``draft`` is ignored here
    return 200, data.pull(fake.url, repo.full_name, pr.as_dict())


def request_reviewers(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    pr = repo.pulls.get(int(p["pull_number"]))
    if pr is None:
        raise HttpError(404, "Not Found")
    for login in body.get("reviewers", []):
        if login not in repo.roles:
            raise HttpError(422, "Reviews may only be requested from collaborators.")
        if login not in pr.reviewers:
            pr.reviewers.append(login)
    return 201, data.pull(fake.url, repo.full_name, pr.as_dict(), simple=True)


def create_check(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    run_id = fake.next_id()
    run = {
        "id": run_id,
        "name": body["name"],
        "head_sha": body["head_sha"],
        "started_at": fake.clock.now(),
        "status": body.get("status", "queued"),
        "output": body.get("output"),
        "details_url": body.get("details_url"),
    }
    repo.check_runs[run_id] = run
    return 201, data.check_run(fake.url, repo.full_name, run)


def update_check(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    repo = _repo(fake, p)
    run = repo.check_runs.get(int(p["check_run_id"]))
    if run is None:
        raise HttpError(404, "Not Found")
    run.update(
        {k: v for k, v in body.items() if k in ("status", "conclusion", "output", "details_url")}
    )
    if body.get("conclusion"):
        run.update(status="completed", completed_at=fake.clock.now())
    return 200, data.check_run(fake.url, repo.full_name, run)


ROUTES: list[tuple[str, str, str, Any]] = [
    # (method, path template, auth, handler)
    ("GET", "/app", "app", get_app),
    ("POST", "/app/installations/{installation_id}/access_tokens", "app", mint_token),
    ("GET", "/app/hook/deliveries", "app", list_deliveries),
    ("POST", "/app/hook/deliveries/{delivery_id}/attempts", "app", redeliver),
    ("GET", "/repos/{owner}/{repo}/issues/{issue_number}", "installation", get_issue),
    ("GET", "/repos/{owner}/{repo}/contents/{path:path}", "installation", get_contents),
    ("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments", "installation", list_comments),
    (
        "POST",
        "/repos/{owner}/{repo}/issues/{issue_number}/comments",
        "installation",
        create_comment,
    ),
    ("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}", "installation", update_comment),
    ("POST", "/repos/{owner}/{repo}/labels", "installation", create_label),
    ("POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels", "installation", add_labels),
    (
        "DELETE",
        "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}",
        "installation",
        remove_label,
    ),
    ("POST", "/repos/{owner}/{repo}/issues/{issue_number}/reactions", "installation", add_reaction),
    (
        "POST",
        "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
        "installation",
        add_reaction,
    ),
    (
        "GET",
        "/repos/{owner}/{repo}/collaborators/{username}/permission",
        "installation",
        permission,
    ),
    ("GET", "/repos/{owner}/{repo}/pulls", "installation", list_pulls),
    ("POST", "/repos/{owner}/{repo}/pulls", "installation", create_pull),
    ("GET", "/repos/{owner}/{repo}/pulls/{pull_number}", "installation", get_pull),
    ("PATCH", "/repos/{owner}/{repo}/pulls/{pull_number}", "installation", update_pull),
    (
        "POST",
        "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers",
        "installation",
        request_reviewers,
    ),
    ("POST", "/repos/{owner}/{repo}/check-runs", "installation", create_check),
    ("PATCH", "/repos/{owner}/{repo}/check-runs/{check_run_id}", "installation", update_check),
    ("POST", "/graphql", "installation", graphql),
    ("POST", "/app-manifests/{code}/conversions", "none", convert_manifest),
]
