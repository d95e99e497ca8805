"""How a web process is served: uvicorn's settings in one place.

`agentium web` (and so `make run`) serves the bot with them, and `make bench` serves its
bare Starlette app with the same ones, so the two are measured alike.
"""

from __future__ import annotations


def serve(factory: str, host: str, port: int) -> None:
    """Serve the ASGI app built by the factory at import string `factory` until stopped.

    uvloop and httptools (both dependencies) are named rather than left to "auto", so a
    missing one fails at start instead of silently serving at a fraction of the speed.
    """
    import uvicorn

    uvicorn.run(
        factory,
        factory=True,
        host=host,
        port=port,
        loop="uvloop",
        http="httptools",
        lifespan="on",
        access_log=False,
        log_config=None,
    )
