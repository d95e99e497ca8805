"""The shipped suite: up to date with its folders, and what it must hold."""

from __future__ import annotations

import yaml

from tests.eval.suite_files import INSTANCES, SUITE, SUITE_DIR, build
from workers.eval.grade import patched_files
from workers.eval.instance import Suite, is_archive


def test_the_suite_file_is_built_from_its_folders() -> None:
    assert SUITE.read_text(encoding="utf-8") == build(), (
        "run `python -m tests.eval.suite_files --write`"
    )


def test_eight_instances_on_both_corpus_repositories_simple_and_complex(suite: Suite) -> None:
    assert len(suite.instances) >= 8
    assert {i.repo for i in suite.instances} == {"pytest-dev/iniconfig", "un33k/python-slugify"}
    kinds = [yaml.safe_load((INSTANCES / i.instance_id / "meta.yml").read_text())["kind"]
             for i in suite.instances]  # fmt: skip
    assert {"SIMPLE", "COMPLEX"} == set(kinds)
    assert (SUITE_DIR / "LICENSE-iniconfig").is_file()
    assert (SUITE_DIR / "LICENSE-python-slugify").is_file()


def test_every_instance_has_hidden_tests_and_a_reference_fix_the_agents_never_see(
    suite: Suite,
) -> None:
    for instance in suite.instances:
        assert instance.source is not None and is_archive(instance.source)
        assert instance.patch and instance.test_patch and instance.fail_to_pass
        assert not set(instance.fail_to_pass) & set(instance.pass_to_pass)
        fixed, tested = set(patched_files(instance.patch)), set(patched_files(instance.test_patch))
        assert fixed and tested and not fixed & tested, instance.instance_id
        assert "diff --git" not in instance.problem_statement
        for line in instance.patch.splitlines():
            if line.startswith("+") and len(line) > 30 and not line.startswith("+++"):
                assert line[1:].strip() not in instance.problem_statement, line
