"""Model routing: which adapter and model run each agent.

``routing.default`` gives ``{adapter, model}``; ``routing.overrides`` maps keys to partial
settings. A key falls back field by field along its chain, e.g.
``PLAN_JUDGE -> JUDGE -> default``. Unknown keys, fields or adapters are errors at load
time, with a message naming the key. ``routing.fallback`` (optional, the same shape) is the
route a role takes once the recovery ladder rolled its provider back.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from workers.controller.errors import ConfigError
from workers.controller.phases import Phase, Role

BASE_KEYS = ("PLAN", "IMPLEMENT", "REVIEW", "DOCS", "COMPLETE", "BLOCKED", "NOTHING_TO_DO")
REVIEW_KEYS = ("PLAN_REVIEW", "IMPLEMENT_REVIEW", "DOCS_REVIEW")
JUDGE_KEYS = ("JUDGE", "PLAN_JUDGE", "IMPLEMENT_JUDGE", "REVIEW_JUDGE", "DOCS_JUDGE")
COMPLEXITY_KEYS = ("COMPLEXITY", "PLAN_COMPLEXITY")
LADDER_KEYS = ("DOCTOR", "DOCTOR_STRONG", "REPLAN")  # the recovery ladder's calls
VALID_KEYS = frozenset((*BASE_KEYS, *REVIEW_KEYS, *JUDGE_KEYS, *COMPLEXITY_KEYS, *LADDER_KEYS))

DEFAULT_ADAPTERS = frozenset({"anthropic", "scripted"})
_FIELDS = ("adapter", "model")
_GROUPS = {"_REVIEW": "REVIEW", "_JUDGE": "JUDGE", "_COMPLEXITY": "COMPLEXITY"}


@dataclass(frozen=True)
class Route:
    adapter: str
    model: str


@dataclass(frozen=True)
class Routing:
    default: Route
    overrides: Mapping[str, Mapping[str, str]]
    # ``routing.fallback``, the same shape: where a role goes once the recovery ladder's
    # doctor rolled its provider back (None: no fallback route; the role stays).
    fallback: Routing | None = None

    def resolve_fallback(self, key: str) -> Route:
        """The fallback route for ``key`` (its usual route when none is configured)."""
        return self.fallback.resolve(key) if self.fallback else self.resolve(key)

    def resolve(self, key: str) -> Route:
        """The route for ``key``, each field from the first key in its chain that sets it."""
        if key not in VALID_KEYS:
            raise ConfigError(f"routing key {key!r} is not one of {sorted(VALID_KEYS)}")
        chain = [self.overrides.get(k, {}) for k in fallback_chain(key)]
        adapter = next((c["adapter"] for c in chain if "adapter" in c), self.default.adapter)
        model = next((c["model"] for c in chain if "model" in c), self.default.model)
        return Route(adapter=adapter, model=model)


def fallback_chain(key: str) -> tuple[str, ...]:
    """``key`` and the keys it falls back to, before ``default``."""
    for suffix, group in _GROUPS.items():
        if key.endswith(suffix):
            return (key, group)
    return (key,)


def routing_key(role: Role, phase: Phase, *, strong: bool = False) -> str:
    """The routing key of an agent: PLAN, PLAN_REVIEW, PLAN_JUDGE, PLAN_COMPLEXITY, ...;
    the recovery ladder's calls: DOCTOR (DOCTOR_STRONG for its second call) and REPLAN."""
    if role is Role.DOCTOR:
        return "DOCTOR_STRONG" if strong else "DOCTOR"
    if role is Role.REPLANNER:
        return "REPLAN"
    suffix = {Role.REVIEWER: "_REVIEW", Role.JUDGE: "_JUDGE", Role.ASSESSOR: "_COMPLEXITY"}
    return f"{phase.value}{suffix.get(role, '')}"


def _route_fields(
    where: str, value: object, adapters: Collection[str], *, complete: bool
) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: expected a mapping with adapter and/or model")
    unknown = sorted(str(k) for k in value if k not in _FIELDS)
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {unknown}; allowed: adapter, model")
    fields: dict[str, str] = {}
    for name in _FIELDS:
        if name not in value:
            if complete:
                raise ConfigError(f"{where}.{name}: missing")
            continue
        item = value[name]
        if not isinstance(item, str) or not item.strip():
            raise ConfigError(f"{where}.{name}: expected a non-empty string")
        fields[name] = item
    if "adapter" in fields and fields["adapter"] not in adapters:
        raise ConfigError(
            f"{where}.adapter: unknown adapter {fields['adapter']!r}; valid: {sorted(adapters)}"
        )
    return fields


def _overrides(value: object, adapters: Collection[str]) -> dict[str, dict[str, str]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError("routing.overrides: expected a mapping of routing keys")
    result: dict[str, dict[str, str]] = {}
    for key, route in value.items():
        if key not in VALID_KEYS:
            raise ConfigError(
                f"routing.overrides.{key}: unknown routing key; valid: {sorted(VALID_KEYS)}"
            )
        where = f"routing.overrides.{key}"
        result[str(key)] = _route_fields(where, route, adapters, complete=False)
    return result


def parse_routing(
    data: Mapping[str, Any] | None,
    adapters: Collection[str] = DEFAULT_ADAPTERS,
    base: Routing | None = None,
) -> Routing:
    """Validate a ``{"routing": {"default": ..., "overrides": ...}}`` mapping.

    With ``base`` (e.g. the shipped defaults under a repository's settings) every part is
    optional and what is given is laid over ``base`` key by key.
    """
    section = (data or {}).get("routing")
    if section is None and base is not None:
        return base
    if not isinstance(section, Mapping):
        raise ConfigError("routing: missing or not a mapping")
    allowed = ("default", "overrides", "fallback")
    unknown = sorted(str(k) for k in section if k not in allowed)
    if unknown:
        raise ConfigError(f"routing: unknown key(s) {unknown}; allowed: {', '.join(allowed)}")
    raw_default = section.get("default", {} if base else None)
    fields = _route_fields("routing.default", raw_default, adapters, complete=base is None)
    overrides = _overrides(section.get("overrides"), adapters)
    fallback = _fallback(section.get("fallback"), adapters, base.fallback if base else None)
    if base is None:
        return Routing(default=Route(**fields), overrides=overrides, fallback=fallback)
    default = Route(**{**vars(base.default), **fields})
    merged = {k: {**base.overrides.get(k, {}), **v} for k, v in overrides.items()}
    return Routing(default=default, overrides={**base.overrides, **merged}, fallback=fallback)


def _fallback(value: object, adapters: Collection[str], base: Routing | None) -> Routing | None:
    if value is None:
        return base
    if isinstance(value, Mapping) and "fallback" in value:
        raise ConfigError("routing.fallback: a fallback route has no fallback of its own")
    try:
        return parse_routing({"routing": value}, adapters, base)
    except ConfigError as error:
        raise ConfigError(str(error).replace("routing", "routing.fallback", 1)) from None
