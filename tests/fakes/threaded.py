"""An ASGI app served by uvicorn in a daemon thread, on a free loopback port.

The fakes of GitHub and Anthropic, and the bot's own web app in its tests, are served
this way: real HTTP over real sockets, within the test's process.
"""

from __future__ import annotations

import socket
import threading
import time

import uvicorn

START_S = 10.0


class ThreadedServer:
    def __init__(self, config: uvicorn.Config, name: str) -> None:
        self._server = uvicorn.Server(config)
        self._name = name
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    def start(self) -> str:
        """Serve; the base URL once the server accepts connections."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._socket = sock
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_S
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"{self._name} did not start")
            time.sleep(0.01)
        return f"http://127.0.0.1:{sock.getsockname()[1]}"

    def stop(self) -> None:
        if self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=START_S)
        if self._socket is not None:
            self._socket.close()
