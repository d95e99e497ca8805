"""The whole manifest flow through the setup app, against the fake GitHub."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from bot.setup import create_setup_app
from config.settings import Settings, load_settings
from tests.fakes import github_manifest
from tests.fakes.clock import ManualClock
from tests.fakes.github import FakeGitHub
from tests.fakes.keys import app_key_pair
from tests.setup.pages import local_path, register_form


def setup_client(fake: FakeGitHub, env_file: Path, **extra: str) -> TestClient:
    settings = load_settings({"GITHUB_API_URL": fake.url, "GITHUB_WEB_URL": fake.url, **extra})
    return TestClient(create_setup_app(settings, env_file=env_file), base_url="http://testserver")


@pytest.fixture
def env_file(tmp_path: Path) -> Path:
    path = tmp_path / ".env"
    path.write_text("# mine\nANTHROPIC_API_KEY=sk-ant-keep\n")
    return path


def register(client: TestClient, fake: FakeGitHub) -> str:
    """Open the page, "create" the App on GitHub, follow GitHub's redirect; the final page."""
    form = register_form(client.get("/").text)
    response = client.get(local_path(github_manifest.confirm(fake, form.manifest, form.state)))
    assert response.status_code == 200, response.text
    return response.text


def test_the_page_posts_the_manifest_to_github(fake_github: FakeGitHub, env_file: Path) -> None:
    client = setup_client(fake_github, env_file, PUBLIC_URL="https://bot.example.org/")
    response = client.get("/")
    assert response.status_code == 200
    assert not any(tag in response.text for tag in ("<script", "<link", "src=", "@import"))
    assert "form-action 'self' " + fake_github.url in response.headers["content-security-policy"]
    form = register_form(response.text)
    assert form.action.startswith(f"{fake_github.url}/settings/apps/new?state=")
    manifest = json.loads(form.manifest)
    assert manifest["url"] == "https://bot.example.org"
    assert manifest["hook_attributes"]["url"] == "https://bot.example.org/api/github/webhooks"
    assert manifest["redirect_url"] == "https://bot.example.org/setup/callback"
    assert manifest["default_permissions"]["contents"] == "write"
    assert "issues" in manifest["default_events"]
    assert 'id="tunnel"' not in response.text
    assert form.state != register_form(client.get("/").text).state


def test_without_public_url_the_request_address_is_used_and_a_tunnel_asked_for(
    fake_github: FakeGitHub, env_file: Path
) -> None:
    client = TestClient(
        create_setup_app(
            load_settings({"GITHUB_API_URL": fake_github.url, "GITHUB_WEB_URL": fake_github.url}),
            env_file=env_file,
        ),
        base_url="http://127.0.0.1:3000",
    )
    page = client.get("/").text
    manifest = json.loads(register_form(page).manifest)
    assert manifest["hook_attributes"]["url"] == "http://127.0.0.1:3000/api/github/webhooks"
    assert 'id="tunnel"' in page and "PUBLIC_URL" in page


def test_an_organization_gets_its_own_new_app_page(fake_github: FakeGitHub, env_file: Path) -> None:
    client = setup_client(fake_github, env_file)
    form = register_form(client.get("/", params={"org": "octo-org"}).text)
    assert form.action.startswith(f"{fake_github.url}/organizations/octo-org/settings/apps/new?")
    assert client.get("/", params={"org": "../evil"}).status_code == 400


def test_registration_writes_env_and_links_to_the_installation(
    fake_github: FakeGitHub, env_file: Path
) -> None:
    page = register(setup_client(fake_github, env_file), fake_github)
    assert 'href="https://github.com/apps/agentium-bot/installations/new"' in page
    assert "restart" in page.lower() or "start it again" in page
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    text = env_file.read_text()
    assert text.startswith("# mine\nANTHROPIC_API_KEY=sk-ant-keep\n")
    assert len([line for line in text.splitlines() if line.startswith("PRIVATE_KEY=")]) == 1
    settings = load_settings_from(env_file)
    assert settings.app_id == fake_github.app_id
    assert settings.app_slug == "agentium-bot"
    assert settings.private_key is not None
    assert settings.private_key.get_secret_value() == app_key_pair().private_pem
    assert settings.webhook_secret is not None
    secret = settings.webhook_secret.get_secret_value()
    assert len(secret) == 40 and secret not in page
    assert app_key_pair().private_pem.splitlines()[1] not in page


def load_settings_from(env_file: Path) -> Settings:
    return Settings(_env_file=env_file)


def test_a_bad_state_is_refused_and_nothing_is_exchanged(
    fake_github: FakeGitHub, env_file: Path
) -> None:
    client = setup_client(fake_github, env_file)
    form = register_form(client.get("/").text)
    redirect = github_manifest.confirm(fake_github, form.manifest, "forged-state")
    assert client.get(local_path(redirect)).status_code == 400
    assert not fake_github.calls("POST", "/app-manifests/{code}/conversions")
    assert "APP_ID" not in env_file.read_text()


def test_a_second_callback_does_not_overwrite(fake_github: FakeGitHub, env_file: Path) -> None:
    client = setup_client(fake_github, env_file)
    first, second = (register_form(client.get("/").text) for _ in range(2))  # two tabs
    redirect = local_path(github_manifest.confirm(fake_github, first.manifest, first.state))
    assert client.get(redirect).status_code == 200
    written = env_file.read_text()
    assert client.get(redirect).status_code == 400  # the state was used
    again = github_manifest.confirm(fake_github, second.manifest, second.state)
    assert client.get(local_path(again)).status_code == 409
    assert len(fake_github.calls("POST", "/app-manifests/{code}/conversions")) == 1
    assert env_file.read_text() == written
    assert "is registered" in client.get("/").text  # no new form once .env names an App


def test_an_existing_app_id_is_never_overwritten(fake_github: FakeGitHub, tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    client = setup_client(fake_github, env_file)
    form = register_form(client.get("/").text)
    env_file.write_text("APP_ID=99\n")  # written by hand meanwhile
    response = client.get(
        local_path(github_manifest.confirm(fake_github, form.manifest, form.state))
    )
    assert response.status_code == 409
    assert env_file.read_text() == "APP_ID=99\n"
    assert not fake_github.calls("POST", "/app-manifests/{code}/conversions")


def test_an_expired_code_is_explained(
    fake_github: FakeGitHub, env_file: Path, clock: ManualClock
) -> None:
    client = setup_client(fake_github, env_file)
    form = register_form(client.get("/").text)
    redirect = github_manifest.confirm(fake_github, form.manifest, form.state)
    clock.advance(3601)
    response = client.get(local_path(redirect))
    assert response.status_code == 400
    assert "Registration failed" in response.text
    assert "APP_ID" not in env_file.read_text()


def test_webhooks_wait_until_setup_is_done(fake_github: FakeGitHub, env_file: Path) -> None:
    client = setup_client(fake_github, env_file)
    assert client.post("/api/github/webhooks", content=b"{}").status_code == 503
    assert client.get("/healthz").json() == {"status": "setup"}
