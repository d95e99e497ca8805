"""Run folders of `agentium eval`: each run gets its own, and old ones do not pile up."""

from __future__ import annotations

from pathlib import Path

from config.settings import load_settings
from workers.eval.cli import earlier_runs, run_folder
from workers.eval.instance import Suite


def _suite(name: str) -> Suite:
    return Suite(path=Path(f"/suites/{name}.jsonl"), instances=())


def test_only_the_newest_runs_of_the_suite_are_kept(tmp_path: Path) -> None:
    settings = load_settings({"DATA_DIR": str(tmp_path)})
    runs = tmp_path / "eval"
    runs.mkdir()
    stamps = [f"2026112{day}T101010000000" for day in range(1, 6)]
    for stamp in stamps:
        (runs / f"mine-{stamp}" / "inst-1").mkdir(parents=True)
    other = runs / f"other-{stamps[0]}"
    other.mkdir()
    stray = runs / "mine-notes"
    stray.mkdir()

    new = run_folder(settings, _suite("mine"), keep=2)

    kept = {path.name for path in earlier_runs(runs, "mine")}
    assert kept == {new.name, f"mine-{stamps[4]}", f"mine-{stamps[3]}"}
    assert other.is_dir() and stray.is_dir()  # another suite's run, a folder not a run


def test_keep_zero_leaves_only_the_new_run(tmp_path: Path) -> None:
    settings = load_settings({"DATA_DIR": str(tmp_path)})
    first = run_folder(settings, _suite("mine"), keep=0)
    second = run_folder(settings, _suite("mine"), keep=0)
    assert not first.exists() and second.is_dir()
