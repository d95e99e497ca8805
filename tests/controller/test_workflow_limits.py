from __future__ import annotations

import pytest

from workers.controller.errors import ConfigError
from workers.controller.limits import Limits, parse_workflow_config
from workers.controller.memory import MemoryType
from workers.controller.phases import Path, Phase
from workers.defaults import load_default_workflow_config


def test_shipped_config_is_the_design_table() -> None:
    config = load_default_workflow_config()
    expected = {
        Path.SIMPLE: (1, 2, 1),
        Path.COMPLEX: (3, 5, 3),
        None: (3, 5, 3),  # before the path is known
    }
    for path, numbers in expected.items():
        got = tuple(
            config.limits.max_iterations(path, p) for p in (Phase.PLAN, Phase.IMPLEMENT, Phase.DOCS)
        )
        assert got == numbers
    assert config.limits.eval_no_signal_limit == 2
    assert config.memory.priorities[0] is MemoryType.KEY_FACT
    assert config.limits == Limits()


def test_partial_settings_take_defaults() -> None:
    config = parse_workflow_config({"limits": {"eval_no_signal_limit": 0}})
    assert config.limits.eval_no_signal_limit == 0
    assert config.limits.max_iterations(Path.COMPLEX, Phase.IMPLEMENT) == 5


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"limits": {"SIMPLE": {"PLAN": 0, "IMPLEMENT": 2, "DOCS": 1}}}, "limits.SIMPLE.PLAN"),
        ({"limits": {"COMPLEX": {"PLAN": 3, "IMPLEMENT": 5}}}, "limits.COMPLEX.DOCS"),
        ({"limits": {"eval_no_signal_limit": -1}}, "limits.eval_no_signal_limit"),
        ({"limits": {"MEDIUM": {}}}, "limits.MEDIUM"),
        ({"memory": {"priorities": ["KEY_FACT", "GOSSIP"]}}, "memory.priorities.1"),
        ({"memroy": {}}, "memroy"),
    ],
)
def test_invalid_settings_name_the_key(data: dict[str, object], named: str) -> None:
    with pytest.raises(ConfigError, match=named.replace(".", r"\.")):
        parse_workflow_config(data, "agentium.yml")


def test_the_recovery_ladders_limits_are_shipped_and_validated() -> None:
    recovery = load_default_workflow_config().limits.recovery
    assert (recovery.same_failures, recovery.near_end, recovery.escalation) == (2, 0.8, True)
    assert (recovery.replans_per_phase, recovery.replans_per_task) == (1, 5)
    doctor = recovery.doctor
    assert (doctor.min_attempts, doctor.per_phase, doctor.per_task) == (2, 2, 10)
    assert (doctor.strong, doctor.infrastructure) == (5, 3)
    with pytest.raises(ConfigError, match=r"limits\.recovery\.same_failures"):
        parse_workflow_config({"limits": {"recovery": {"same_failures": 1}}})
    with pytest.raises(ConfigError, match=r"limits\.recovery\.doctor\.cheap"):
        parse_workflow_config({"limits": {"recovery": {"doctor": {"cheap": 1}}}})
