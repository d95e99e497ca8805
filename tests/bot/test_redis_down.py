"""With Redis unreachable the receiver answers 503, so GitHub shows the delivery as failed."""

from __future__ import annotations

from starlette.testclient import TestClient

from bot.app import WEBHOOK_PATH, create_app
from config.settings import load_settings
from tests.support import SECRET, delivery_headers, encode, payload
from workers.processes.embedded_redis import free_port


def test_webhook_and_health_answer_503_without_redis() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    settings = load_settings({"WEBHOOK_SECRET": SECRET, "REDIS_URL": url})
    body = encode(payload("issues", "labeled"))
    with TestClient(create_app(settings, dispatch=False)) as client:
        response = client.post(WEBHOOK_PATH, content=body, headers=delivery_headers("issues", body))
        assert response.status_code == 503
        assert client.get("/healthz").status_code == 503
        # Ignored events need no Redis and still get their answer.
        star = encode({"action": "created"})
        assert (
            client.post(
                WEBHOOK_PATH, content=star, headers=delivery_headers("star", star)
            ).status_code
            == 202
        )
