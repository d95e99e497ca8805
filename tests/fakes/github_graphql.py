"""The fake's GraphQL endpoint: the two mutations and the one query the bot sends,
answered like GitHub (the query's branches read from the bare repository's files, as git
keeps them: a loose ref first, then ``packed-refs``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakes.github import FakeGitHub

Answer = tuple[int, Any]

# mutation name -> the draft flag it leaves the pull request with
MUTATIONS = {"markPullRequestReadyForReview": False, "convertPullRequestToDraft": True}
_NAME = re.compile(r"\b(" + "|".join(MUTATIONS) + r")\b")


def graphql(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    query, variables = str(body.get("query", "")), body.get("variables") or {}
    if "defaultBranchRef" in query:
        return _heads(fake, variables)
    found = _NAME.search(query)
    if found is None:
        known = " and ".join(MUTATIONS)
        return 200, {"data": None, "errors": [{"type": "NOT_SUPPORTED", "message": known}]}
    name, node = found.group(1), str(variables.get("id", ""))
    for repo in fake.repos.values():
        for pr in repo.pulls.values():
            if pr.node_id == node:
                pr.draft = MUTATIONS[name]
                result = {"clientMutationId": None, "pullRequest": {"isDraft": pr.draft}}
                return 200, {"data": {name: result}}
    message = f"Could not resolve to a node with the global id of '{node}'"
    error = {"type": "NOT_FOUND", "path": [name], "message": message}
    return 200, {"data": {name: None}, "errors": [error]}


def _heads(fake: FakeGitHub, variables: dict[str, Any]) -> Answer:
    """``repository { defaultBranchRef { name target { oid } } ref(qualifiedName:) ... }``"""
    full_name = f"{variables.get('owner')}/{variables.get('name')}"
    if full_name.lower() not in fake.repos:
        message = f"Could not resolve to a Repository with the name '{full_name}'."
        error = {"type": "NOT_FOUND", "path": ["repository"], "message": message}
        return 200, {"data": {"repository": None}, "errors": [error]}
    bare = fake.bare_path(fake.repo(full_name).full_name)
    head = (bare / "HEAD").read_text().strip().removeprefix("ref: ")
    default_sha, task_sha = _ref(bare, head), _ref(bare, str(variables.get("branch", "")))
    default = {"name": head.removeprefix("refs/heads/"), "target": {"oid": default_sha}}
    task = {"target": {"oid": task_sha}} if task_sha else None
    repository = {"defaultBranchRef": default if default_sha else None, "ref": task}
    return 200, {"data": {"repository": repository}}


def _ref(bare: Path, name: str) -> str | None:
    loose = bare / name
    if name.startswith("refs/heads/") and loose.is_file():
        return loose.read_text().strip()
    packed = bare / "packed-refs"
    lines = packed.read_text().splitlines() if packed.is_file() else []
    for line in lines:
        sha, _, ref = line.partition(" ")
        if ref == name:
            return sha
    return None
