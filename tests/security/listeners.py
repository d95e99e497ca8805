"""Things a worker's host listens on: a Unix socket, an abstract socket, a loopback port.

Each accepts every connection (and closes it), so a probe that reaches one can tell.
"""

from __future__ import annotations

import contextlib
import secrets
import selectors
import socket
import threading
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def listening(base: Path) -> Iterator[tuple[int, str]]:
    """``base/agent.sock`` (open to everyone), an abstract socket and a TCP port on
    127.0.0.1; yields the port and the abstract socket's name."""
    base.mkdir(parents=True, exist_ok=True)
    abstract = f"agentium-probe-{secrets.token_hex(4)}"
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(str(base / "agent.sock"))
    (base / "agent.sock").chmod(0o777)
    hidden = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    hidden.bind(f"\0{abstract}")
    tcp = socket.create_server(("127.0.0.1", 0))
    servers = (unix, hidden, tcp)
    stop = threading.Event()
    thread = threading.Thread(target=_accept, args=(servers, stop), daemon=True)
    for server in servers:
        server.listen()
    thread.start()
    try:
        yield tcp.getsockname()[1], abstract
    finally:
        stop.set()
        thread.join()
        for server in servers:
            server.close()


def _accept(servers: tuple[socket.socket, ...], stop: threading.Event) -> None:
    with selectors.DefaultSelector() as selector:
        for server in servers:
            selector.register(server, selectors.EVENT_READ)
        while not stop.is_set():
            for key, _ in selector.select(timeout=0.2):
                connection, _ = key.fileobj.accept()  # type: ignore[union-attr]
                connection.close()
