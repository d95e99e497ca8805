"""``agentium eval`` with a scripted model, offline: what a run prints, as a format only.

    .venv/bin/python -m tests.eval.demo

Three instances of the shipped suite (tests/eval/support.py's PLAN) answered by the fake
Anthropic server from scenario files: the figures say nothing about any model's quality.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from tests.eval.suite_files import SUITE
from tests.eval.support import HARNESS, scripted_suite
from tests.fakes.anthropic import FakeAnthropic
from workers.eval import cli
from workers.eval.instance import load_suite

ROOT = Path(__file__).parent.parent.parent


def main() -> int:
    with (
        tempfile.TemporaryDirectory(prefix="agentium-eval-demo-") as folder,
        FakeAnthropic() as llm,
    ):
        place = Path(folder)
        suite_file, router = scripted_suite(load_suite(SUITE), llm, place)
        os.environ.update(
            ANTHROPIC_API_KEY=llm.api_key, ANTHROPIC_BASE_URL=llm.base_url,
            DATA_DIR=str(place / "data"), PYTHONPATH=str(ROOT),
        )  # fmt: skip
        os.environ.pop("REDIS_URL", None)
        os.chdir(place)
        status = cli.main([str(suite_file), "--workers", "2"], sys.stdout, harness=HARNESS)
        return status if not router.mismatches() else 1


if __name__ == "__main__":
    sys.exit(main())
