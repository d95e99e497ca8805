"""One JSON line per delivery, on the web side and in the job, with the same delivery id."""

from __future__ import annotations

import json
import logging

import pytest
import redis
from starlette.testclient import TestClient

from bot.app import WEBHOOK_PATH, create_app
from bot.logs import JsonFormatter, Line, log_line
from config.settings import load_settings
from config.wire import DeliveryMeta
from tests.bot.served import served
from tests.support import SECRET, delivery_headers, encode, payload
from workers.intake.deliveries import process_delivery
from workers.intake.intents import Rules


def test_formatter_emits_extra_fields_as_json() -> None:
    record = logging.LogRecord("agentium", logging.INFO, __file__, 1, "delivery", None, None)
    record.delivery = "abc"
    record.ms = 1.5
    line = json.loads(JsonFormatter().format(record))
    assert line["msg"] == "delivery" and line["delivery"] == "abc" and line["ms"] == 1.5
    assert line["level"] == "info" and "ts" in line


def test_a_line_formats_as_the_record_logging_would_make(
    caplog: pytest.LogCaptureFixture,
) -> None:
    logger = logging.getLogger("agentium.test_lines")
    fields = {"delivery": "abc", "ms": 1.5, "issue": None}
    with caplog.at_level(logging.INFO, logger=logger.name):
        logger.info("delivery", extra=fields)
        log_line(logger, logging.INFO, "delivery", fields)
        log_line(logger, logging.DEBUG, "not shown", fields)
    made, line = caplog.records
    assert isinstance(line, Line) and not isinstance(made, Line)
    assert vars(made).keys() == vars(line).keys()  # every attribute a formatter may read
    formatter = JsonFormatter()
    made_json, line_json = (json.loads(formatter.format(r)) for r in (made, line))
    assert made_json.pop("ts")[:16] == line_json.pop("ts")[:16]
    assert made_json == line_json
    plain = logging.Formatter("%(asctime)s %(filename)s:%(lineno)d %(levelname)s %(message)s")
    assert plain.format(line).endswith("(unknown file):0 INFO delivery")


@pytest.mark.parametrize("way", ["asgi", "uvicorn"])
def test_delivery_id_reaches_the_job_log(
    redis_url: str, redis_client: redis.Redis, caplog: pytest.LogCaptureFixture, way: str
) -> None:
    caplog.set_level(logging.INFO)
    settings = load_settings({"WEBHOOK_SECRET": SECRET, "REDIS_URL": redis_url})
    data = payload("issues", "labeled")
    body = encode(data)
    app = create_app(settings, dispatch=False)
    headers = delivery_headers("issues", body, delivery="log-1")
    with TestClient(app) if way == "asgi" else served(app) as client:
        assert client.post(WEBHOOK_PATH, content=body, headers=headers).status_code == 202
    [web] = [r for r in caplog.records if r.name == "agentium.webhooks"]
    assert (web.delivery, web.event, web.action, web.decision) == (
        "log-1",
        "issues",
        "labeled",
        "enqueued",
    )
    assert (web.repo, web.issue, web.status) == ("Codertocat/Hello-World", 1, 202)
    assert web.ms >= 0
    rules = Rules("agentium", None, frozenset())
    process_delivery(
        redis_client,
        rules,
        DeliveryMeta(delivery="log-1", event="issues", action="labeled"),
        body.decode(),
        lambda record, cause: None,
    )
    [job] = [r for r in caplog.records if r.name == "agentium.jobs"]
    assert job.delivery == "log-1"
    assert SECRET not in caplog.text
