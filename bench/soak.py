"""The soak's figures: tasks, model calls, the most calls in flight per task.

    python -m bench.soak [--tasks 20] [--workers 4] [--seed 17] [--json]

The run of tests/e2e/test_soak.py (tests/e2e/soak.py): real processes, every task a short
SIMPLE scenario whose model calls take 1 to 90 s (one long call per task), the sweep
every 10 s. It takes about six minutes with the defaults.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import asdict
from pathlib import Path

from tests.e2e.soak import report, soak


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.soak", description=__doc__)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as tmp:
        run = soak(Path(tmp), tasks=options.tasks, workers=options.workers, seed=options.seed)
    print(json.dumps(asdict(run.figures)) if options.json else report(run), flush=True)
    return 0 if not run.problems else 1


if __name__ == "__main__":
    raise SystemExit(main())
