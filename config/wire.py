"""What the web side hands the workers: an intake entry, as JSON in Redis and as job args.

The receiver writes one entry per accepted delivery (the body, or what the bot reads of
it, ``bot.projection``, is stored apart, under ``keys.delivery_body``); the dispatcher
passes the entries to ``handle_deliveries`` as plain dicts (``model_dump``), and the
worker validates them again where it reads them.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class DeliveryMeta(BaseModel):
    """GitHub's headers that matter for one delivery, and when the receiver accepted it."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    delivery: str
    event: str
    action: str | None = None
    received_at: float = 0.0
