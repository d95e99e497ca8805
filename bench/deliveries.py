"""What the load generator sends: signed `issues` `labeled` deliveries over keep-alive HTTP/1.1.

Each request is the corpus payload padded to the wanted size with a long issue body and a
per-delivery issue number, signed per request, with a fresh X-GitHub-Delivery except a
chosen fraction that repeats an earlier delivery (same id, same body), as a GitHub
redelivery would.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_PAYLOAD = (
    Path(__file__).resolve().parent.parent
    / "tests"
    / "corpus"
    / "webhooks"
    / "issues"
    / "labeled.payload.json"
)
NUMBER_SENTINEL = b"918273645"  # the issue number's place in the body template
HEADER_END = b"\r\n\r\n"

# Not loop.time(): uvloop's clock only advances in whole milliseconds.
now = time.perf_counter

# The padding: what a long bug report looks like (steps, logs, a stack trace).
FILLER = """

### Steps to reproduce

1. Install the app on a repository with branch protection enabled.
2. Label an issue with `agentium` while a review is pending on the default branch.
3. Wait for the check run to appear on the pull request.

### Expected

The check run reports the phase and links to the issue; the pull request is updated.

### Actual

The check run stays queued and the log shows:

```
Traceback (most recent call last):
  File "/srv/app/workers/jobs.py", line 88, in handle_delivery
    task = store.claim(repo, issue, lease_s=120)
  File "/srv/app/workers/tasks.py", line 141, in claim
    raise LockBusy(f"{repo}#{issue} is held by {holder} until {expires}")
workers.tasks.LockBusy: octo-org/octo-repo#1347 is held by w1 until 2024-05-02T10:41:07Z
```

Environment: Ubuntu 22.04, Python 3.11.7, Redis 7.2.4, two workers behind nginx.
"""


@dataclass(frozen=True, slots=True)
class Delivery:
    delivery_id: str
    number: int  # the issue number written into the body


@dataclass(frozen=True, slots=True)
class BodyTemplate:
    """A JSON body with a hole where the issue number goes."""

    head: bytes
    tail: bytes

    def render(self, number: int) -> bytes:
        return b"%b%d%b" % (self.head, number, self.tail)


def _dump(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":")).encode()


def body_template(payload_file: Path, size: int) -> BodyTemplate:
    """The corpus payload with its issue body lengthened so the whole is about `size` bytes."""
    payload = json.loads(payload_file.read_text(encoding="utf-8"))
    issue = payload["issue"]
    issue["number"] = int(NUMBER_SENTINEL)
    text = (issue.get("body") or "") + FILLER * (size // len(FILLER) + 1)
    while True:
        issue["body"] = text
        excess = len(_dump(payload)) - size
        if excess <= 0:
            break
        text = text[: -max(1, excess // 2)]  # escaped characters take two bytes
    encoded = _dump(payload)
    if encoded.count(NUMBER_SENTINEL) != 1:
        raise ValueError(f"{payload_file}: the number placeholder is not unique")
    head, _, tail = encoded.partition(NUMBER_SENTINEL)
    return BodyTemplate(head, tail)


def stream(duplicates: float, rng: random.Random) -> Iterator[Delivery]:
    """Endless deliveries; about `duplicates` of them repeat an earlier one."""
    sent: list[Delivery] = []
    index = 0
    while True:
        if sent and rng.random() < duplicates:
            yield sent[rng.randrange(len(sent))]
            continue
        index += 1
        fresh = Delivery(str(uuid.UUID(int=rng.getrandbits(128), version=4)), index)
        sent.append(fresh)
        yield fresh


def plan(count: int, duplicates: float, rng: random.Random) -> list[Delivery]:
    """`count` deliveries; about `duplicates` of them repeat an earlier one."""
    deliveries = stream(duplicates, rng)
    return [next(deliveries) for _ in range(count)]


class RequestFactory:
    """Hand-written HTTP/1.1 requests, headers as GitHub sends them.

    The bodies (one per issue number, `BODIES` of them) are rendered and signed once, so a
    request costs the generator a header line, not a 20 KB HMAC: the generator must stay
    well ahead of the fastest server it measures.
    """

    BODIES = 256

    def __init__(self, template: BodyTemplate, secret: str, host: str, path: str) -> None:
        key = secret.encode()
        self._bodies = [template.render(n) for n in range(1, self.BODIES + 1)]
        self._heads = [
            (
                f"POST {path} HTTP/1.1\r\nHost: {host}\r\n"
                "User-Agent: GitHub-Hookshot/bench\r\n"
                "Accept: */*\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n"
                "X-GitHub-Event: issues\r\nX-GitHub-Hook-ID: 1\r\n"
                f"X-Hub-Signature-256: sha256={hmac.new(key, body, hashlib.sha256).hexdigest()}\r\n"
                "X-GitHub-Delivery: "
            ).encode()
            for body in self._bodies
        ]

    def build(self, delivery: Delivery) -> tuple[bytes, bytes, bytes]:
        """The request as three buffers (head, delivery id line, body), for one writelines."""
        index = (delivery.number - 1) % self.BODIES
        line = b"%b\r\n\r\n" % delivery.delivery_id.encode()
        return self._heads[index], line, self._bodies[index]
