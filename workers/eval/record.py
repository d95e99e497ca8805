"""What one instance's run gave, and the suite's summary: the JSON a run writes.

``pr`` is the pull request's fate as it would be on GitHub: ``ready`` (marked ready for
review), ``nomerge`` (left a draft: the controller overrode the judge), ``blocked``,
``nothing_to_do``, or ``error`` (the harness could not run the instance: ``error`` says
why). Tokens: ``input`` are the prompt tokens read at full price, ``cache_read`` those
read from the prompt cache, ``cache_write`` those written to it, ``output`` the answers.
``model_seconds`` is the time spent inside agent runs (model calls and the commands the
agents ran); ``wall_seconds`` the instance's whole run, environment and grading included.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Fate = Literal["ready", "nomerge", "blocked", "nothing_to_do", "error"]
FATES: tuple[Fate, ...] = ("ready", "nomerge", "blocked", "nothing_to_do", "error")
_MODEL = ConfigDict(frozen=True, extra="ignore")


class InstanceRecord(BaseModel):
    model_config = _MODEL

    instance_id: str
    repo: str
    resolved: bool = False
    final_phase: str = ""
    pr: Fate = "error"
    path: str | None = None
    iterations: dict[str, int] = Field(default_factory=dict)
    agent_calls: int = 0
    model_calls: int = 0
    input_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    dollars: float = 0.0
    wall_seconds: float = 0.0
    model_seconds: float = 0.0
    models: list[str] = Field(default_factory=list)  # the models the agents called
    still_failing: list[str] = Field(default_factory=list)  # FAIL_TO_PASS not passing
    broken: list[str] = Field(default_factory=list)  # PASS_TO_PASS no longer passing
    environment: str = ""
    branch: str = ""
    folder: str = ""  # where the repository (with the branch), the log and the state are
    error: str = ""

    @property
    def tokens(self) -> int:
        return (
            self.input_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
            + (self.output_tokens)
        )


class Summary(BaseModel):
    model_config = _MODEL

    instances: int
    resolved: int
    resolved_rate: float
    fates: dict[str, int]
    ready: int
    resolved_among_ready: int
    ready_resolved_rate: float | None  # how far a "ready" can be trusted; None: none ready
    dollars: float
    dollars_per_resolved: float | None
    wall_seconds: float
    wall_seconds_per_resolved: float | None
    model_seconds: float
    tokens: int


def _per(total: float, count: int) -> float | None:
    return round(total / count, 4) if count else None


def summarise(records: list[InstanceRecord]) -> Summary:
    resolved = [r for r in records if r.resolved]
    ready = [r for r in records if r.pr == "ready"]
    dollars = sum(r.dollars for r in records)
    wall = sum(r.wall_seconds for r in records)
    return Summary(
        instances=len(records),
        resolved=len(resolved),
        resolved_rate=round(len(resolved) / len(records), 4) if records else 0.0,
        fates={fate: sum(r.pr == fate for r in records) for fate in FATES},
        ready=len(ready),
        resolved_among_ready=sum(r.resolved for r in ready),
        ready_resolved_rate=_per(sum(r.resolved for r in ready), len(ready)),
        dollars=round(dollars, 4),
        dollars_per_resolved=_per(dollars, len(resolved)),
        wall_seconds=round(wall, 1),
        wall_seconds_per_resolved=_per(wall, len(resolved)),
        model_seconds=round(sum(r.model_seconds for r in records), 1),
        tokens=sum(r.tokens for r in records),
    )


class Results(BaseModel):
    """A run of a suite: what ``--out`` writes and ``compare`` reads."""

    model_config = _MODEL

    suite: str
    started: str
    elapsed_seconds: float
    workers: int
    routing: str = ""  # the --routing file, if any
    models: list[str] = Field(default_factory=list)  # the models the agents called
    records: list[InstanceRecord]
    summary: Summary
