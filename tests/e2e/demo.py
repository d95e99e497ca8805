"""`make demo`: the whole bot, offline, on two issues; prints what GitHub would show.

Starts the embedded Redis, the web and worker processes, the fake GitHub (holding the
iniconfig repository) and the fake Anthropic server with a scripted model, sends a signed
`issues` labeled webhook per issue, and prints each issue's timeline as a person would
see it: the plan, the draft PR, the reviewer's and judge's comments per iteration, and
the end: ready for review, or NOMERGE with the PR left draft. Then stops everything.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from tests.e2e.harness import REPO, Harness
from tests.e2e.timeline import timeline

SCENARIOS = Path(__file__).parent.parent / "scenarios"
ISSUES = (
    (42, "issue-42-complex.yml", "Support inline comments", "COMPLEX path, judged done: ready"),
    (77, "issue-22-simple.yml", "Fix the README typo", "SIMPLE path, over the limit: NOMERGE"),
)


def run_one(bot: Harness, number: int, scenario: str, title: str, story: str) -> bool:
    assert bot.github is not None
    print(f"\n=== #{number} {title} ({story}) ===", flush=True)
    before = len(bot.github.requests)
    model = bot.script(SCENARIOS / scenario)
    bot.open_issue(number, title, f"Scenario {scenario}: {story}.")
    answer = bot.label(number).status_code
    print(f"→ a maintainer labels #{number} 'agentium': the webhook is answered {answer}")
    started = time.monotonic()
    skip = _count(bot, before)
    record = bot.wait_finished(number)
    for line in timeline(bot.github)[skip:]:
        print(f"  {line}")
    pull = bot.github.repo(REPO).pulls.get(record.pr_number or -1)
    state = "draft" if pull and pull.draft else "ready for review"
    print(
        f"→ finished in {time.monotonic() - started:.1f} s: {record.workflow.phase}, "
        f"PR #{record.pr_number} {state}, {model.calls} model calls, "
        f"{len(bot.github.requests) - before} GitHub requests"
    )
    return not model.errors


def _count(bot: Harness, before: int) -> int:
    """How many timeline lines the requests before `before` made."""
    assert bot.github is not None
    requests = bot.github.requests
    saved = list(requests)
    requests[:] = saved[:before]
    try:
        return len(timeline(bot.github))
    finally:
        requests[:] = saved


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="agentium-demo-") as root:
        print("agentium demo: Redis, web, 2 workers, fake GitHub and fake Anthropic (offline)")
        with Harness(Path(root), workers=2) as bot:
            ok = all(run_one(bot, *issue) for issue in ISSUES)
    print("\ndemo done" if ok else "\ndemo: the scripted model and the bot disagreed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
