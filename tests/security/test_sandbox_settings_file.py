"""The bot's `.env` (every secret, for `make run`) is not readable by an agent's command.

A hole found by issue 7's review: the sandbox bound the whole system read-only, so a
command could read the `.env` in the worker's working directory. Since issue 18 the
sandbox binds only what a command needs, so the file is absent (and the runtime still
lists it as hidden, for a layout where it falls inside something bound).
Outside `/tmp`, since the sandbox's `/tmp` is private anyway.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from config.settings import load_settings
from workers.defaults import load_default_agent_settings
from workers.runtime import build_runner

BWRAP = shutil.which("bwrap")
pytestmark = pytest.mark.skipif(BWRAP is None, reason="bubblewrap is not installed")


@pytest.fixture
def workdir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="agentium-sbx-", dir="/var/tmp"))
    try:
        (root / ".env").write_text("WEBHOOK_SECRET=env-file-secret\n")
        (root / ".data" / "checkout").mkdir(parents=True)
        monkeypatch.chdir(root)
        yield root
    finally:
        shutil.rmtree(root)


def test_the_settings_file_is_masked(workdir: Path) -> None:
    runner = build_runner(load_settings({}), load_default_agent_settings(), {})
    sandbox = runner.deps.sandbox  # as the worker builds it
    checkout = workdir / ".data" / "checkout"
    result = sandbox.run(f"cat {workdir}/.env ../../.env; ls -a {workdir}", checkout)
    assert result.sandboxed
    assert "env-file-secret" not in result.output
    assert result.output.count("No such file or directory") == 2
    assert ".data" in result.output  # only the path to the checkout is there
