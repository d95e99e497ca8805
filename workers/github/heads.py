"""Where a repository's default branch and a task's branch are, in one GraphQL request.

A first step clones the task's checkout from the machine's copy of the repository
(:mod:`workers.gitops.cache`) and keeps it only when the copy is at the commit GitHub
names here and the task has no branch yet.
"""

from __future__ import annotations

import logging
from typing import Any

from workers.github.client import GitHubClient
from workers.github.refs import IssueRef
from workers.gitops.cache import RemoteHeads

log = logging.getLogger("agentium.github.heads")

HEADS_QUERY = """
query($owner: String!, $name: String!, $branch: String!) {
  repository(owner: $owner, name: $name) {
    defaultBranchRef { name target { oid } }
    ref(qualifiedName: $branch) { target { oid } }
  }
}
"""


def remote_heads(gh: GitHubClient, repo: IssueRef, branch: str) -> RemoteHeads | None:
    """The default branch, its commit and ``branch``'s commit; None when GitHub did not say
    (an empty repository, or any failure: the caller then clones over the network)."""
    variables = {"owner": repo.owner, "name": repo.repo, "branch": f"refs/heads/{branch}"}
    try:
        data = gh.graphql.request(HEADS_QUERY, variables)
    except Exception as error:  # the network clone that follows reports what is wrong
        log.warning("could not ask where the branches are: %s", error)
        return None
    return _heads(data.get("repository") or {})


def _heads(repository: dict[str, Any]) -> RemoteHeads | None:
    default, task = repository.get("defaultBranchRef"), repository.get("ref")
    if not default or not (default.get("target") or {}).get("oid"):
        return None
    task_head = (task.get("target") or {}).get("oid") if task else None
    return RemoteHeads(default["name"], default["target"]["oid"], task_head)
