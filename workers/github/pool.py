"""One connection pool per process for a GitHub client, whatever githubkit does with it.

githubkit builds an httpx client around the transport for each request and closes it
afterwards, which closes the transport: every request paid for a connection of its own
(a TLS handshake with GitHub), and a request that ended closed the connections of requests
still running in other threads (the first step asks GitHub two things at once). This
transport ignores that close and keeps its connections for the process's next requests.

A work-horse forked from a worker must not use the worker's connections (both processes
would read the same sockets): the first request in a new process starts a pool of its own.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import httpx


class ProcessPool(httpx.BaseTransport):
    def __init__(self, make: Callable[[], httpx.BaseTransport]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._inner = make()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._current().handle_request(request)

    def _current(self) -> httpx.BaseTransport:
        if self._pid != os.getpid():
            with self._lock:
                if self._pid != os.getpid():  # forked: the parent's sockets are left alone
                    self._inner, self._pid = self._make(), os.getpid()
        return self._inner

    def close(self) -> None:
        """Kept open: githubkit closes the transport after every request."""
