"""A 60-step worker run whose tool outputs alone exceed the context window.

Every step reads ~20,000 characters (the tool output cap) of a generated module, with a
short note from the model; the run ends at its 60-step limit. It runs three times through
the real AgentRunner and tool loop against the fake Anthropic server:

- unmanaged: a window so large that nothing is ever pruned (what the bot did before);
- shipped: the window settings of ``config/agents.yml`` (200,000 tokens);
- small: a 64,000-token window, where pruning is not enough and the run is compacted.

The per-run token limit (``run_limits``) is lifted so that every run does its 60 steps
(with the shipped limit of 3,000,000 tokens, cache reads included, the shipped run stops a
few steps short).

Per call: the prompt's size in tokens (the fake's 4 bytes per token, as the usage
reports it) and what the window did before the call (pruned, compacted).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.cachemodel import CacheModel
from tests.fakes.anthropic import FakeAnthropic, Recorded, Reply, text, tool_use
from workers.agents.runner import AgentRunner
from workers.agents.settings import AgentSettings, WindowSettings
from workers.agents.task import TaskContext
from workers.controller.effects import RunAgent
from workers.controller.phases import Phase, Role
from workers.gitops.checkout import LocalGit

STEPS = 60
LINES_PER_READ = 300
NOTE = "Reading the next part of the module to find where the parser keeps its state. " * 4
SECONDS_PER_CALL = 20.0


@dataclass(frozen=True)
class LongRun:
    name: str
    window: int  # tokens
    usable: int
    prune_at: int
    tokens: list[int]  # per call
    fits: list[str]  # per call: "", "pruned", "compacted"
    read_share: float

    @property
    def first_compaction(self) -> int | None:
        return next((n for n, f in enumerate(self.fits) if f == "compacted"), None)


def _module(checkout: Path) -> str:
    body = [f"STATE_{n:05} = ({n}, 'parser state value', {n * 7})  # noqa" for n in range(20_000)]
    (checkout / "generated.py").write_text("\n".join(body) + "\n")
    return "generated.py"


def _script(path: str) -> list[Reply]:
    reads = [
        tool_use(
            "read_file",
            {"path": path, "start_line": 1 + LINES_PER_READ * n},
            say=f"Step {n + 1}. {NOTE}",
        )
        for n in range(STEPS - 1)
    ]
    return [*reads, text("Found it: the parser keeps its state in STATE_17500.")]


def _fit_of(recorded: Recorded, previous: Recorded | None) -> str:
    body = recorded.json
    if "summary of the earlier part of this run" in str(body["messages"][0]) and (
        previous is None or len(body["messages"]) < len(previous.json["messages"])
    ):
        return "compacted"
    stubs = str(body).count("removed to save context")
    before = str(previous.json).count("removed to save context") if previous else 0
    return "pruned" if stubs > before else ""


def long_run(
    name: str,
    runner: AgentRunner,
    window: WindowSettings,
    fake: FakeAnthropic,
    task: TaskContext,
    git: LocalGit,
) -> LongRun:
    path = _module(task.checkout)
    git.commit_all("a generated module")
    first = len(fake.requests)
    fake.script.clear()
    fake.push(*_script(path))
    effect = RunAgent(
        role=Role.WORKER, phase=Phase.IMPLEMENT, iteration=1, max_iterations=1,
        routing_key="IMPLEMENT",
    )  # fmt: skip
    runner.run(effect, task, git)
    recorded = fake.requests[first:]
    cache = CacheModel()
    uses = [cache.request(r.json, n * SECONDS_PER_CALL) for n, r in enumerate(recorded)]
    fits = [_fit_of(r, recorded[n - 1] if n else None) for n, r in enumerate(recorded)]
    usable = int(window.default_tokens * (1 - window.margin)) - 8192
    share = sum(u.read for u in uses) / max(1, sum(u.prompt for u in uses))
    prune_at = int(usable * window.prune_at)
    tokens = [u.prompt for u in uses]
    return LongRun(name, window.default_tokens, usable, prune_at, tokens, fits, share)


def configurations(shipped: AgentSettings) -> list[tuple[str, WindowSettings]]:
    window = shipped.window
    return [
        ("unmanaged", window.model_copy(update={"default_tokens": 10_000_000})),
        ("shipped", window),
        ("small", window.model_copy(update={"default_tokens": 64_000})),
    ]


def report(runs: list[LongRun]) -> None:
    print("\n60-step worker run, every tool output ~20,000 characters (prompt tokens per call)")
    for run in runs:
        compacted = [n + 1 for n, f in enumerate(run.fits) if f == "compacted"]
        pruned = [n + 1 for n, f in enumerate(run.fits) if f == "pruned"]
        print(
            f"\n{run.name}: window {run.window:,} tokens, prune at {run.prune_at:,}; "
            f"largest prompt {max(run.tokens):,}; cache read {run.read_share:.0%}"
        )
        print(f"  pruned before calls {pruned or '-'}; compacted before calls {compacted or '-'}")
        for row in range(0, len(run.tokens), 10):
            cells = " ".join(f"{t / 1000:6.1f}k" for t in run.tokens[row : row + 10])
            print(f"  {row + 1:>2}-{min(row + 10, len(run.tokens)):>2}: {cells}")


def verdicts(runs: list[LongRun]) -> dict[str, object]:
    by_name = {run.name: run for run in runs}
    unmanaged, shipped, small = by_name["unmanaged"], by_name["shipped"], by_name["small"]
    start = small.first_compaction
    after = small.tokens[start:] if start is not None else []
    return {
        "unmanaged_largest": max(unmanaged.tokens),
        "unmanaged_would_overflow": max(unmanaged.tokens) > shipped.window,
        "shipped_largest": max(shipped.tokens),
        "shipped_within_window": max(shipped.tokens) <= shipped.prune_at,
        "small_compacted": start is not None,
        "small_flat_after_compaction": bool(after) and max(after) <= small.prune_at,
        "long_run_calls": len(shipped.tokens),
    }
