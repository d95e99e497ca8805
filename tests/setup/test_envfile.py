"""`.env` written by setup: other lines kept, same keys replaced, 0600, APP_ID never replaced."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.setup_envfile import AlreadyRegistered, EnvFile
from config.settings import Settings


def test_new_file_is_private_and_readable_by_settings(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    pem = "-----BEGIN PRIVATE KEY-----\nABC+/=\n-----END PRIVATE KEY-----\n"
    EnvFile(path).write({"APP_ID": "7", "PRIVATE_KEY": SecretStr(pem), "WEBHOOK_SECRET": "s"})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(path.read_text().splitlines()) == 3
    settings = Settings(_env_file=path)
    assert settings.app_id == 7
    assert settings.private_key is not None and settings.private_key.get_secret_value() == pem


def test_other_lines_are_kept_and_same_keys_replaced(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text("# comment\nexport WEBHOOK_SECRET=old\nPORT=4000\n")
    path.chmod(0o644)
    EnvFile(path).write({"APP_ID": "7", "WEBHOOK_SECRET": "new"})
    assert path.read_text() == "# comment\nPORT=4000\nAPP_ID='7'\nWEBHOOK_SECRET='new'\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left


def test_an_existing_app_id_is_refused(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text("app_id = 3\n")
    with pytest.raises(AlreadyRegistered):
        EnvFile(path).write({"APP_ID": "7"})
    assert path.read_text() == "app_id = 3\n"


def test_a_value_that_would_break_the_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="quote"):
        EnvFile(tmp_path / ".env").write({"APP_SLUG": "it's"})
    assert not (tmp_path / ".env").exists()
