"""How a web process is served: uvicorn's settings in one place.

`agentium web` (and so `make run`) serves the bot with them, and `make bench` serves its
bare Starlette app with the same ones (and uvicorn's own HTTP protocol), so the two are
measured alike.
"""

from __future__ import annotations

BOT_PROTOCOL = "bot.hookserver:WebhookProtocol"  # httptools, answering deliveries itself
PLAIN_PROTOCOL = "httptools"


def serve(factory: str, host: str, port: int, http: str = BOT_PROTOCOL) -> None:
    """Serve the ASGI app built by the factory at import string `factory` until stopped.

    uvloop and httptools (both dependencies) are named rather than left to "auto", so a
    missing one fails at start instead of silently serving at a fraction of the speed.
    The bot's own protocol is uvicorn's httptools one with deliveries answered in it
    (`bot/hookserver.py`); `PLAIN_PROTOCOL` serves any other app as uvicorn would.
    """
    import uvicorn

    uvicorn.run(
        factory,
        factory=True,
        host=host,
        port=port,
        loop="uvloop",
        http=http,
        lifespan="on",
        access_log=False,
        log_config=None,
    )
