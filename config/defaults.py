"""Loads the default configuration files shipped in this package."""

from __future__ import annotations

from importlib import resources
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field


class BotDefaults(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    trigger_label: str = Field(min_length=1, max_length=50)
    commands: frozenset[str]


def read_yaml(name: str) -> dict[str, Any]:
    """A YAML mapping from the `config` package (e.g. "bot.yml")."""
    text = resources.files("config").joinpath(name).read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    if not isinstance(data, dict):
        raise ValueError(f"config/{name} must hold a mapping")
    return data


def load_bot_defaults() -> BotDefaults:
    return BotDefaults.model_validate(read_yaml("bot.yml"))
