from __future__ import annotations

from typing import Any

import pytest

from workers.controller.errors import ConfigError
from workers.controller.phases import Phase, Role
from workers.controller.routing import VALID_KEYS, Route, parse_routing, routing_key
from workers.defaults import load_default_routing


def config(overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    default = {"adapter": "anthropic", "model": "base-model"}
    return {"routing": {"default": default, "overrides": overrides or {}}}


def test_shipped_defaults() -> None:
    routing = load_default_routing()
    sonnet = Route("anthropic", "claude-sonnet-5-5")
    haiku = Route("anthropic", "claude-haiku-5-5")
    for key in ("PLAN", "IMPLEMENT", "DOCS", "PLAN_REVIEW", "IMPLEMENT_JUDGE", "JUDGE"):
        assert routing.resolve(key) == sonnet
    assert routing.resolve("PLAN_COMPLEXITY") == haiku
    assert routing.resolve(routing_key(Role.ASSESSOR, Phase.PLAN)) == haiku


@pytest.mark.parametrize(
    ("overrides", "key", "expected"),
    [
        ({}, "PLAN_JUDGE", "base-model"),
        ({"JUDGE": {"model": "judge"}}, "PLAN_JUDGE", "judge"),
        (
            {"JUDGE": {"model": "judge"}, "PLAN_JUDGE": {"model": "plan-judge"}},
            "PLAN_JUDGE",
            "plan-judge",
        ),
        ({"JUDGE": {"model": "judge"}}, "DOCS_JUDGE", "judge"),
        ({"REVIEW": {"model": "review"}}, "IMPLEMENT_REVIEW", "review"),
        (
            {"REVIEW": {"model": "review"}, "IMPLEMENT_REVIEW": {"model": "i"}},
            "IMPLEMENT_REVIEW",
            "i",
        ),
        ({"REVIEW": {"model": "review"}}, "PLAN", "base-model"),
        ({"PLAN": {"model": "plan"}}, "PLAN_REVIEW", "base-model"),
        ({"COMPLEXITY": {"model": "small"}}, "PLAN_COMPLEXITY", "small"),
        ({"COMPLEXITY": {"model": "s"}, "PLAN_COMPLEXITY": {"model": "p"}}, "PLAN_COMPLEXITY", "p"),
    ],
)
def test_fallback_chains(overrides: dict[str, Any], key: str, expected: str) -> None:
    assert parse_routing(config(overrides)).resolve(key).model == expected


def test_fields_fall_back_separately() -> None:
    routing = parse_routing(
        config({"JUDGE": {"adapter": "scripted"}, "PLAN_JUDGE": {"model": "plan-judge"}})
    )
    assert routing.resolve("PLAN_JUDGE") == Route("scripted", "plan-judge")


@pytest.mark.parametrize(
    ("data", "named"),
    [
        (config({"PLAN_REVEIW": {"model": "x"}}), "routing.overrides.PLAN_REVEIW"),
        (config({"PLAN": {"adapter": "codex"}}), "routing.overrides.PLAN.adapter"),
        (config({"PLAN": {"modle": "x"}}), "routing.overrides.PLAN"),
        (config({"PLAN": {"model": ""}}), "routing.overrides.PLAN.model"),
        (config({"PLAN": "opus"}), "routing.overrides.PLAN"),
        ({"routing": {"default": {"adapter": "anthropic"}}}, "routing.default.model"),
        ({"routing": {"default": {"adapter": "codex", "model": "m"}}}, "routing.default.adapter"),
        ({"routing": {"default": {"adapter": "anthropic", "model": "m"}, "extra": 1}}, "extra"),
        ({}, "routing"),
    ],
)
def test_invalid_configs_name_the_key(data: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigError, match=named.replace(".", r"\.")):
        parse_routing(data)


def test_adapters_are_a_parameter() -> None:
    data = {"routing": {"default": {"adapter": "codex", "model": "gpt"}}}
    assert parse_routing(data, adapters={"codex"}).resolve("PLAN") == Route("codex", "gpt")


def test_repository_settings_lay_over_the_defaults() -> None:
    base = load_default_routing()
    repo = parse_routing({"routing": {"overrides": {"JUDGE": {"model": "opus"}}}}, base=base)
    assert repo.resolve("IMPLEMENT_JUDGE") == Route("anthropic", "opus")
    assert repo.resolve("PLAN_COMPLEXITY").model == "claude-haiku-5-5"
    assert parse_routing({}, base=base) is base
    with pytest.raises(ConfigError, match=r"routing\.overrides\.JUGDE"):
        parse_routing({"routing": {"overrides": {"JUGDE": {"model": "x"}}}}, base=base)


def test_resolving_an_unknown_key_is_an_error() -> None:
    with pytest.raises(ConfigError, match="PLAN_JUGDE"):
        load_default_routing().resolve("PLAN_JUGDE")


def test_every_agent_has_a_valid_key() -> None:
    for phase in (Phase.PLAN, Phase.IMPLEMENT, Phase.DOCS):
        for role in (Role.WORKER, Role.REVIEWER, Role.JUDGE):
            assert routing_key(role, phase) in VALID_KEYS
    assert routing_key(Role.ASSESSOR, Phase.PLAN) == "PLAN_COMPLEXITY"


def test_the_ladder_has_its_keys_and_a_fallback_route() -> None:
    routing = load_default_routing()
    assert routing_key(Role.DOCTOR, Phase.IMPLEMENT) == "DOCTOR"
    assert routing_key(Role.DOCTOR, Phase.IMPLEMENT, strong=True) == "DOCTOR_STRONG"
    assert routing_key(Role.REPLANNER, Phase.DOCS) == "REPLAN"
    assert routing.resolve("DOCTOR") == Route("anthropic", "claude-haiku-5-5")
    assert routing.resolve("DOCTOR_STRONG") == Route("anthropic", "claude-opus-5-5")
    assert routing.resolve("REPLAN") == Route("anthropic", "claude-sonnet-5-5")
    assert routing.resolve_fallback("IMPLEMENT") == Route("anthropic", "claude-opus-5-5")


def test_a_fallback_route_is_validated_and_laid_over_the_base() -> None:
    base = {"default": {"adapter": "anthropic", "model": "m"}}
    with pytest.raises(ConfigError, match=r"routing\.fallback\.default\.model: missing"):
        parse_routing({"routing": {**base, "fallback": {"default": {"adapter": "anthropic"}}}})
    nested = {"default": {"adapter": "anthropic", "model": "f"}, "fallback": {}}
    with pytest.raises(ConfigError, match="no fallback of its own"):
        parse_routing({"routing": {**base, "fallback": nested}})
    defaults = load_default_routing()
    repo = parse_routing({"routing": {"fallback": {"default": {"model": "x"}}}}, base=defaults)
    assert repo.resolve_fallback("PLAN") == Route("anthropic", "x")
    assert parse_routing({"routing": {}}, base=defaults).fallback == defaults.fallback
