"""The ``index`` tests' check: a sandboxed run with the network reaches the index or says
why not (so they skip with a clear reason where the index cannot be reached)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import index
from tests.agents.conftest import make_sandbox, needs_bwrap, stock_sandbox_settings
from workers.processes.embedded_redis import free_port

pytestmark = needs_bwrap


def test_an_unreachable_index_is_named_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{free_port()}/simple/"
    monkeypatch.setattr(index, "index_url", lambda: url)
    problem = index.unreachable(make_sandbox(stock_sandbox_settings()))
    assert problem is not None
    assert problem.startswith(f"the package index ({url}pip/) cannot be reached from the sandbox")
    assert "Connection refused" in problem


def test_the_index_is_pips_unless_the_machine_names_another(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    conf = tmp_path / "pip.conf"
    monkeypatch.setattr(index, "PIP_FILES", (conf,))
    assert index.index_url() == "https://pypi.org/simple/"
    conf.write_text("[global]\nindex-url = https://mirror.example/simple\n")
    assert index.index_url() == "https://mirror.example/simple/"
