from pathlib import Path

import pytest

from config.settings import SettingsError, load_settings

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n"


def test_defaults() -> None:
    settings = load_settings({})
    assert settings.port == 3000
    assert settings.github_api_url == "https://api.github.com"
    assert settings.redis_url is None
    assert settings.bot_login is None


def test_private_key_with_literal_backslash_n() -> None:
    settings = load_settings({"PRIVATE_KEY": PEM.replace("\n", "\\n")})
    assert settings.private_key is not None
    assert settings.private_key.get_secret_value() == PEM


def test_private_key_from_path(tmp_path: Path) -> None:
    key = tmp_path / "app.pem"
    key.write_text(PEM)
    settings = load_settings({"PRIVATE_KEY_PATH": str(key)})
    assert settings.private_key is not None
    assert settings.private_key.get_secret_value() == PEM


def test_unreadable_private_key_path_is_named(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="PRIVATE_KEY_PATH"):
        load_settings({"PRIVATE_KEY_PATH": str(tmp_path / "missing.pem")})


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PORT", "eighty"),
        ("PORT", "70000"),
        ("APP_ID", "-3"),
        ("REDIS_URL", "localhost:6379"),
        ("GITHUB_API_URL", "ftp://x"),
        ("PRIVATE_KEY", "not a key"),
        ("LOG_LEVEL", "LOUD"),
    ],
)
def test_errors_name_the_variable(name: str, value: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings({name: value})
    assert str(caught.value).splitlines()[1].strip().startswith(f"{name}:")


def test_secrets_never_appear_in_reprs_or_errors() -> None:
    settings = load_settings({"WEBHOOK_SECRET": "hunter2", "ANTHROPIC_API_KEY": "sk-ant-123"})
    assert "hunter2" not in repr(settings) and "sk-ant-123" not in str(settings)
    with pytest.raises(SettingsError) as caught:
        load_settings({"PRIVATE_KEY": "secret-but-not-pem"})
    assert "secret-but-not-pem" not in str(caught.value)


def test_require_lists_every_missing_variable() -> None:
    with pytest.raises(SettingsError, match="WEBHOOK_SECRET, REDIS_URL"):
        load_settings({}).require("webhook_secret", "redis_url")


def test_env_file_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text("WEBHOOK_SECRET=from-file\nPORT=4100\n")
    monkeypatch.delenv("PORT", raising=False)
    monkeypatch.delenv("WEBHOOK_SECRET", raising=False)
    settings = load_settings(env_file=tmp_path / ".env")
    assert settings.port == 4100
    assert settings.webhook_secret is not None
    assert settings.webhook_secret.get_secret_value() == "from-file"


def test_app_slug_gives_the_bot_login() -> None:
    assert load_settings({"APP_SLUG": "agentium-dev"}).bot_login == "agentium-dev[bot]"


def test_git_url_follows_the_api_url() -> None:
    assert load_settings({}).git_base_url == "https://github.com"
    ghes = load_settings({"GITHUB_API_URL": "https://ghe.example/api/v3"})
    assert ghes.git_base_url == "https://ghe.example"
    local = load_settings({"GITHUB_API_URL": "http://127.0.0.1:9000"})
    assert local.git_base_url == "http://127.0.0.1:9000"
    explicit = load_settings({"GITHUB_GIT_URL": "http://git.local/"})
    assert explicit.git_base_url == "http://git.local"


def test_an_empty_value_is_unset() -> None:
    settings = load_settings({"ANTHROPIC_API_KEY": "", "GITHUB_API_URL": ""})
    assert settings.anthropic_api_key is None
    assert settings.github_api_url == "https://api.github.com"
    with pytest.raises(SettingsError, match="ANTHROPIC_API_KEY"):
        settings.require("anthropic_api_key")


def test_an_empty_value_in_the_environment_or_env_file_is_unset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("WEBHOOK_SECRET=\nGITHUB_API_URL=\n", encoding="utf-8")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "")
    settings = load_settings(env_file=env_file)
    assert settings.anthropic_api_key is None
    assert settings.webhook_secret is None
    assert settings.github_api_url == "https://api.github.com"
