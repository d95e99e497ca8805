"""The stack's ceiling: a bare Starlette app that reads a webhook's body and answers 202.

`make bench` serves it exactly as `agentium web` serves the bot (`bot.serve`, one uvicorn
process on the same CPU) and loads it the same way, so the receiver's rate can be given
as a fraction of what Starlette on uvicorn can do at all on this machine.

    HOST=127.0.0.1 PORT=3001 python -m bench.bare
"""

from __future__ import annotations

import os

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot.serve import PLAIN_PROTOCOL, serve
from bot.webhooks import WEBHOOK_PATH


async def receive(request: Request) -> Response:
    await request.body()
    return JSONResponse({"decision": "enqueued"}, status_code=202)


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


def create_app() -> Starlette:
    return Starlette(
        routes=[
            Route(WEBHOOK_PATH, receive, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
        ]
    )


if __name__ == "__main__":
    host, port = os.environ.get("HOST", "127.0.0.1"), int(os.environ["PORT"])
    serve("bench.bare:create_app", host, port, http=PLAIN_PROTOCOL)
