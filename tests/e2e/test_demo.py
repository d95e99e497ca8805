"""`make demo` runs and tells both endings."""

from __future__ import annotations

import pytest

from tests.e2e import demo

pytestmark = pytest.mark.slow


def test_demo_shows_both_endings(capsys: pytest.CaptureFixture[str]) -> None:
    assert demo.main() == 0
    out = capsys.readouterr().out
    assert "✅ PR marked ready for review" in out
    assert "NOMERGE: this PR stays a draft" in out
    assert "action_required" in out and "success" in out
    assert "demo done" in out
