"""The fake's GraphQL endpoint: the two mutations the bot sends, answered like GitHub."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakes.github import FakeGitHub

Answer = tuple[int, Any]

# mutation name -> the draft flag it leaves the pull request with
MUTATIONS = {"markPullRequestReadyForReview": False, "convertPullRequestToDraft": True}
_NAME = re.compile(r"\b(" + "|".join(MUTATIONS) + r")\b")


def graphql(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    query, variables = str(body.get("query", "")), body.get("variables") or {}
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
