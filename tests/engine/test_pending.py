"""Which effect failures wait with the task, and how the waiting effects are stored."""

from __future__ import annotations

import httpx
import pytest
from githubkit.exception import RequestFailed, RequestTimeout
from githubkit.response import Response

from workers.controller.effects import (
    CommentKind,
    Effect,
    Finish,
    MarkReady,
    OpenOrUpdatePR,
    PostComment,
    PostNomerge,
    SetLabel,
    Target,
)
from workers.controller.phases import OverrideRule, Phase
from workers.controller.state import Override
from workers.engine.pending import classify, decode, encode
from workers.gitops.runner import GitError
from workers.tasks.lease import LeaseLost

COMMENT = PostComment(Target.ISSUE, CommentKind.STATUS, {"spend": ""})


def failed(status: int, headers: dict[str, str] | None = None) -> RequestFailed:
    request = httpx.Request("POST", "https://api.github.com/repos/o/r/issues/1/comments")
    raw = httpx.Response(status, headers=headers or {}, request=request)
    return RequestFailed(Response(raw, object))


@pytest.mark.parametrize(
    ("effect", "error", "what"),
    [
        (OpenOrUpdatePR(create=True), GitError("git push failed (1): declined"), "push"),
        (COMMENT, failed(502), "github"),
        (COMMENT, failed(429), "github"),
        (COMMENT, failed(403, {"x-ratelimit-remaining": "0"}), "github"),
        (COMMENT, RequestTimeout(httpx.ReadTimeout("slow")), "github"),
        (COMMENT, failed(422), None),
        (COMMENT, failed(403), None),  # a permission error
        (COMMENT, LeaseLost("o/r#1"), None),
        (COMMENT, GitError("not a push"), None),
        (COMMENT, ValueError("a bug"), None),
    ],
)
def test_what_counts_as_infrastructure(effect: Effect, error: Exception, what: str | None) -> None:
    found = classify(effect, error)
    assert (found.what if found else None) == what


def test_every_kept_effect_survives_the_round_trip() -> None:
    override = Override(
        phase=Phase.DOCS, iteration=1, rule=OverrideRule.DOCS_BLOCKED, detail="d", round=0
    )
    effects: list[Effect] = [
        COMMENT,
        OpenOrUpdatePR(create=False),
        MarkReady(),
        PostNomerge("why", (override,), redraft=True),
        SetLabel("agentium:blocked", present=False),
        Finish(Phase.BLOCKED),
    ]
    assert [decode(encode(effect)) for effect in effects] == effects
