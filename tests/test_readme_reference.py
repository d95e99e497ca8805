"""README.md's configuration reference is the one generated from the models."""

from __future__ import annotations

from pathlib import Path

import pytest

from config.settings import Settings
from workers.repoconfig import reference

README = Path(__file__).parent.parent / "README.md"


def test_readme_reference_is_up_to_date() -> None:
    current = README.read_text(encoding="utf-8")
    wanted = reference.replace_between_markers(current, reference.render())
    assert wanted == current, (
        "README.md's configuration reference is out of date; "
        "run `.venv/bin/python -m workers.repoconfig.reference --write`"
    )


def test_every_variable_and_repository_key_is_listed() -> None:
    text = reference.render()
    for name in Settings.model_fields:
        assert f"| `{name.upper()}` |" in text
    for key in ("`limits.COMPLEX.IMPLEMENT`", "`budgets.max_dollars`", "`trigger_label`"):
        assert f"| {key} |" in text


def test_write_and_check(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{reference.BEGIN}\nSTALE-TABLE\n{reference.END}\n\nrest\n")
    assert reference.main(["--check"], readme=readme) == 1
    assert reference.main(["--write"], readme=readme) == 0
    assert reference.main(["--check"], readme=readme) == 0
    text = readme.read_text()
    assert text.startswith("# x\n\n") and text.endswith(f"{reference.END}\n\nrest\n")
    assert "| `PUBLIC_URL` |" in text and "STALE-TABLE" not in text


def test_missing_markers_are_named(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n")
    with pytest.raises(ValueError, match="reference:begin"):
        reference.main(["--write"], readme=readme)
