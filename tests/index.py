"""Whether the package index can be reached from a sandboxed run with the network, as the
environment step reaches it; the tests marked ``index`` and ``make bench`` skip otherwise.

The index is pip's default (PyPI) unless the machine's pip configuration in ``/etc`` (which
the sandbox sees) names another ``index-url``; the worker's own environment variables never
reach the sandbox, so they are not read.
"""

from __future__ import annotations

import configparser
import tempfile
from pathlib import Path

from workers.agents.sandbox import Sandbox

DEFAULT_INDEX = "https://pypi.org/simple/"
PIP_FILES = (Path("/etc/pip.conf"), Path("/etc/xdg/pip/pip.conf"))
PROBE = (
    'python3 -c "import urllib.request, sys; '
    "urllib.request.urlopen(sys.argv[1], timeout=15).read(100); print('reached')\" {url}"
)


def index_url() -> str:
    parser = configparser.ConfigParser()
    parser.read([str(path) for path in PIP_FILES if path.is_file()])
    return parser.get("global", "index-url", fallback=DEFAULT_INDEX).rstrip("/") + "/"


def unreachable(sandbox: Sandbox) -> str | None:
    """None when a run with the network reaches the index; else why not, in one line."""
    url = index_url() + "pip/"
    with tempfile.TemporaryDirectory(prefix="agentium-index-") as folder:
        result = sandbox.run(PROBE.format(url=url), Path(folder), network=True, timeout=30)
    if "reached" in result.output:
        return None
    last = (result.output.strip().splitlines() or ["no output"])[-1]
    return f"the package index ({url}) cannot be reached from the sandbox: {last[:200]}"


def skip_without_index() -> None:
    """``pytest.skip`` with the reason when the sandbox cannot reach the package index."""
    import pytest  # only the tests use this

    from workers.agents.sandbox import SandboxUnavailable, open_sandbox
    from workers.agents.settings import SandboxSettings

    try:
        sandbox = open_sandbox(SandboxSettings(timeout_seconds=60))
    except SandboxUnavailable:
        sandbox = Sandbox(SandboxSettings(timeout_seconds=60), None)
    problem = unreachable(sandbox)
    if problem is not None:
        pytest.skip(problem)
