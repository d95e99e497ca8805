"""The App's webhook delivery log on the fake GitHub: list (cursor pages) and redeliver.

    log = deliveries(fake)
    log.add("guid-1", 503, delivered_at=fake.clock.now() - 60)
    ... GET /app/hook/deliveries?per_page=&cursor=&status=failure, newest first, with a
    ``Link: <...>; rel="next"`` header while more remain; POST .../{id}/attempts records
    the attempt and logs a new delivery (``redelivery: true``) with ``log.outcome`` ...
    log.attempts                                  # the ids asked for, in order

Entries are GitHub's example (``apps-list-webhook-deliveries.200.json``) with the fields
the log decides. The redelivery answer is ``202 {}``: the corpus has no example body
(``null``) and githubkit's model for it is an empty object.
"""

from __future__ import annotations

import copy
import itertools
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tests.fakes import github_data as data

if TYPE_CHECKING:
    from tests.fakes.github import FakeGitHub

Answer = tuple[int, Any] | tuple[int, Any, dict[str, str]]
EXAMPLE = "apps-list-webhook-deliveries.200.json"


@dataclass
class DeliveryLog:
    entries: list[dict[str, Any]] = field(default_factory=list)  # listed newest first
    attempts: list[int] = field(default_factory=list)
    outcome: int = 202  # status code a redelivery gets logged with
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(90_000_001))

    def add(self, guid: str, status_code: int, *, delivered_at: float, **fields: Any) -> int:
        entry = copy.deepcopy(data.example(EXAMPLE)[0])
        entry.update(
            id=next(self._ids),
            guid=guid,
            delivered_at=data.iso(delivered_at),
            redelivery=False,
            status="OK" if 200 <= status_code < 300 else f"Invalid HTTP Response: {status_code}",
            status_code=status_code,
            throttled_at=None,
            **fields,
        )
        self.entries.append(entry)
        return int(entry["id"])

    def find(self, delivery_id: int) -> dict[str, Any] | None:
        return next((e for e in self.entries if e["id"] == delivery_id), None)


_LOGS: weakref.WeakKeyDictionary[FakeGitHub, DeliveryLog] = weakref.WeakKeyDictionary()


def deliveries(fake: FakeGitHub) -> DeliveryLog:
    """The delivery log of one fake GitHub (made on first use)."""
    return _LOGS.setdefault(fake, DeliveryLog())


def list_deliveries(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    found = sorted(deliveries(fake).entries, key=lambda e: (e["delivered_at"], e["id"]))[::-1]
    if q.get("status") == "failure":
        found = [e for e in found if e["status"] != "OK"]
    elif q.get("status") == "success":
        found = [e for e in found if e["status"] == "OK"]
    start = int(q.get("cursor") or 0)
    size = min(int(q.get("per_page", 30)), 100)
    page = found[start : start + size]
    if start + size >= len(found):
        return 200, page
    rest = f"per_page={size}&cursor={start + size}"
    rest += f"&status={q['status']}" if "status" in q else ""
    return 200, page, {"Link": f'<{fake.url}/app/hook/deliveries?{rest}>; rel="next"'}


def redeliver(fake: FakeGitHub, p: dict[str, str], body: Any, q: dict[str, str]) -> Answer:
    log = deliveries(fake)
    entry = log.find(int(p["delivery_id"]))
    if entry is None:
        return 404, data.error("Not Found", 404)
    log.attempts.append(entry["id"])
    fields = {k: entry[k] for k in ("event", "action", "installation_id", "repository_id")}
    log.add(entry["guid"], log.outcome, delivered_at=fake.clock.now(), **fields)
    log.entries[-1]["redelivery"] = True
    return 202, {}
