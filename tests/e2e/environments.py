"""The task environments of the end-to-end tests (and of local mode's tests).

They run without the package index: the repository's settings give the environment step a
command that needs none (``tests/agents/test_corpus_repos.py`` runs the detected one, with
the index). Its environment is still set up, once per test run, in ENVIRONMENTS, which
every harness's ``DATA_DIR/envs`` links to.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

SETTINGS = ".github/agentium.yml"
OFFLINE_SETTINGS = "setup_command: 'true'\nsetup_network: false\n"
ENVIRONMENTS = Path(tempfile.gettempdir()) / f"agentium-e2e-envs-{os.getpid()}"


def share_environments(data_dir: Path) -> None:
    """``data_dir/envs`` is the test run's ENVIRONMENTS: one environment for all harnesses."""
    if not ENVIRONMENTS.exists():
        ENVIRONMENTS.mkdir()
        atexit.register(shutil.rmtree, ENVIRONMENTS, ignore_errors=True)
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "envs").symlink_to(ENVIRONMENTS)
