"""Deliveries to intents: what a webhook means for the bot, applied to the task store."""
