"""The suite reader: SWE-bench's JSONL as it is, this project's fields, clear errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workers.eval.instance import SuiteError, load_suite

SWE_BENCH_LINE: dict[str, Any] = {
    "repo": "octo/widgets",
    "instance_id": "octo__widgets-101",
    "base_commit": "a" * 40,
    "patch": "diff --git a/w.py b/w.py\n",
    "test_patch": "diff --git a/test_w.py b/test_w.py\n",
    "problem_statement": "Widgets crash on empty names\nSteps: make a widget named ''.\n",
    "hints_text": "",
    "created_at": "2023-01-01T00:00:00Z",
    "version": "1.0",
    "FAIL_TO_PASS": '["test_w.py::test_empty"]',
    "PASS_TO_PASS": '["test_w.py::test_a", "test_w.py::test_b"]',
    "environment_setup_commit": "b" * 40,
}


def write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "suite.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_swe_bench_line_is_read_as_it_is(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, json.dumps(SWE_BENCH_LINE), ""))
    (instance,) = suite.instances
    assert instance.instance_id == "octo__widgets-101"
    assert instance.fail_to_pass == ("test_w.py::test_empty",)
    assert instance.pass_to_pass == ("test_w.py::test_a", "test_w.py::test_b")
    assert instance.title == "Widgets crash on empty names"
    assert instance.body == "Steps: make a widget named ''."
    assert instance.patch.startswith("diff --git a/w.py")
    assert instance.source is None  # cloned from https://github.com/octo/widgets.git


def test_this_projects_fields_and_a_relative_source(tmp_path: Path) -> None:
    line = {**SWE_BENCH_LINE, "FAIL_TO_PASS": ["t::x"], "PASS_TO_PASS": []}
    line |= {"source": "repos/w.tar.gz", "setup_command": "true", "base_patch": "diff"}
    (instance,) = load_suite(write(tmp_path, json.dumps(line))).instances
    assert instance.source == str(tmp_path / "repos" / "w.tar.gz")
    assert instance.setup_command == "true" and instance.base_patch == "diff"
    url = {**line, "source": "https://example.com/w.git"}
    assert load_suite(write(tmp_path, json.dumps(url))).instances[0].source == url["source"]


@pytest.mark.parametrize(
    "lines, message",
    [
        (["{not json"], "suite.jsonl:1: not JSON"),
        (["[1, 2]"], "suite.jsonl:1: expected a JSON object"),
        ([json.dumps({**SWE_BENCH_LINE, "FAIL_TO_PASS": "[]"})], "suite.jsonl:1: FAIL_TO_PASS"),
        ([json.dumps({**SWE_BENCH_LINE, "instance_id": "../x"})], "suite.jsonl:1: instance_id"),
        (["", json.dumps({**SWE_BENCH_LINE, "test_patch": ""})], "suite.jsonl:2: test_patch"),
        ([json.dumps(SWE_BENCH_LINE)] * 2, "suite.jsonl:2: instance_id octo__widgets-101 repeated"),
        ([""], "suite.jsonl: no instance"),
    ],
)
def test_bad_suites_are_refused_with_the_line(
    tmp_path: Path, lines: list[str], message: str
) -> None:
    with pytest.raises(SuiteError) as error:
        load_suite(write(tmp_path, *lines))
    assert message in str(error.value)


def test_only_some_instances(tmp_path: Path) -> None:
    other = {**SWE_BENCH_LINE, "instance_id": "other-1"}
    suite = load_suite(write(tmp_path, json.dumps(SWE_BENCH_LINE), json.dumps(other)))
    assert [i.instance_id for i in suite.only(["other-1"]).instances] == ["other-1"]
    with pytest.raises(SuiteError, match="no instance nope"):
        suite.only(["nope"])
