"""Turn token usage into dollars with the price table in ``config/prices.yml``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, NonNegativeFloat, PositiveInt, ValidationError

from workers.controller.errors import ConfigError
from workers.controller.spend import Usage


class Price(BaseModel):
    """USD per ``unit_tokens`` tokens of each kind, with where the figures come from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: NonNegativeFloat
    output: NonNegativeFloat
    cache_write: NonNegativeFloat
    cache_read: NonNegativeFloat
    cache_write_1h: NonNegativeFloat | None = None  # None: twice the input price
    checked: str
    source: str
    note: str = ""


class PriceTable(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    currency: str = "USD"
    unit_tokens: PositiveInt = 1_000_000
    models: dict[str, Price]
    fallback: Price

    def price(self, model: str) -> Price:
        """The row for ``model``, also for dated ids (``claude-x-5-5-20261001``)."""
        if model in self.models:
            return self.models[model]
        for name in sorted(self.models, key=len, reverse=True):
            if model.startswith(name + "-"):
                return self.models[name]
        return self.fallback

    def cost(self, model: str, usage: Usage, *, write_1h_tokens: int = 0) -> float:
        """The dollars of ``usage``; ``write_1h_tokens`` of its cache writes were 1-hour ones."""
        row = self.price(model)
        long_write = row.cache_write_1h if row.cache_write_1h is not None else 2 * row.input
        dollars = (
            usage.input_tokens * row.input
            + usage.output_tokens * row.output
            + usage.cache_write_tokens * row.cache_write
            + usage.cache_read_tokens * row.cache_read
            + write_1h_tokens * (long_write - row.cache_write)
        )
        return dollars / self.unit_tokens


def parse_prices(data: Mapping[str, Any] | None, source: str = "prices") -> PriceTable:
    try:
        return PriceTable.model_validate(dict(data or {}))
    except ValidationError as error:
        raise ConfigError(f"{source}: invalid price table: {error}") from None
