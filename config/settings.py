"""Process settings from the environment and `.env`, with Probot's variable names.

`load_settings()` is called once by each composition root (the web app factory,
the worker entry point, the CLI); nothing else reads the environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

PEM_HEADER = "-----BEGIN"


class SettingsError(ValueError):
    """A setting is missing or malformed; the message names the variable."""


class Settings(BaseSettings):
    """Everything a process needs from its environment. Secrets are SecretStr."""

    # An empty value (`ANTHROPIC_API_KEY=` in .env or the environment) is unset: it gets
    # the default, and a required one is reported missing rather than used empty.
    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        case_sensitive=False,
        env_ignore_empty=True,
    )

    app_id: int | None = Field(
        default=None,
        gt=0,
        description="The GitHub App's id. With neither it nor `WEBHOOK_SECRET` set, `make run` "
        "serves the first-run setup page.",
    )
    app_slug: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9][a-z0-9-]{0,33}$",
        description="The App's slug; its bot user `SLUG[bot]` triggers a task when assigned. "
        "When unset, workers ask GitHub for it with the App's JWT (`GET /app`) and cache it.",
    )
    private_key: SecretStr | None = Field(
        default=None, description="The App's PEM key; one line with literal `\\n` is accepted."
    )
    private_key_path: Path | None = Field(
        default=None, description="Or a path to the PEM file (when `PRIVATE_KEY` is unset)."
    )
    webhook_secret: SecretStr | None = Field(
        default=None,
        description="The App's webhook secret; required by `web`, and by `run` outside setup.",
    )
    redis_url: str | None = Field(
        default=None,
        pattern=r"^(redis|rediss|unix)://",
        description="An existing Redis; when unset, `make run` starts a private one.",
    )
    anthropic_api_key: SecretStr | None = Field(
        default=None, description="The Anthropic API key of the agents."
    )
    anthropic_base_url: str | None = Field(
        default=None,
        pattern=r"^https?://",
        description="Another Anthropic-compatible endpoint (default: the SDK's).",
    )
    github_api_url: str = Field(
        default="https://api.github.com",
        pattern=r"^https?://",
        description="GitHub's REST API: GitHub Enterprise Server or a test server.",
    )
    github_git_url: str | None = Field(
        default=None,
        pattern=r"^https?://",
        description="Where repositories are cloned from (default: derived from the API URL).",
    )
    github_web_url: str | None = Field(
        default=None,
        pattern=r"^https?://",
        description="GitHub's web pages, where setup registers the App (default: derived "
        "from the API URL).",
    )
    public_url: str | None = Field(
        default=None,
        pattern=r"^https?://",
        description="The public address that reaches `PORT` (a tunnel or webhook proxy), put "
        "in the App's webhook URL by setup (default: the setup page's own address).",
    )
    github_write_interval_s: float = Field(
        default=1.0,
        ge=0,
        le=60,
        description="Seconds between content-creating writes per installation (0..60).",
    )
    port: int = Field(default=3000, ge=1, le=65535, description="Where the web process listens.")
    host: str = Field(default="127.0.0.1", description="The address the web process binds.")
    workers: int = Field(
        default=2, ge=1, le=64, description="RQ worker processes started by `make run` (1..64)."
    )
    log_level: str = Field(
        default="INFO",
        pattern=r"^(DEBUG|INFO|WARNING|ERROR)$",
        description="`DEBUG`, `INFO`, `WARNING` or `ERROR`.",
    )
    data_dir: Path = Field(
        default=Path(".data"),
        description="Where the embedded Redis and the task checkouts keep their data.",
    )
    queue_name: str = Field(
        default="agentium", pattern=r"^[A-Za-z0-9_.-]+$", description="The RQ queue."
    )
    agentium_unsafe_no_sandbox: bool = Field(
        default=False,
        description="UNSAFE, for a local experiment only: `1` lets workers run agents' "
        "commands without bubblewrap, with the worker's own access to files, secrets and "
        "network (every command result says so). Without it a worker without a working "
        "bubblewrap refuses to start.",
    )
    sweep_every_s: float = Field(
        default=60.0,
        ge=1,
        le=3600,
        description="Seconds between sweeps for tasks whose next step was lost (1..3600).",
    )
    sweep_stale_after_s: float = Field(
        default=180.0,
        ge=1,
        le=86400,
        description="A task waiting this long without a save, a lease or a queued step is "
        "re-enqueued by the sweep (1..86400).",
    )
    checkout_ttl_s: float = Field(
        default=3600.0,
        ge=60,
        le=30 * 86400,
        description="A worker removes its checkout and state copy of an ended task (or a "
        "left-over one of no task) once unused this long (60..2592000); an active task's "
        "are kept.",
    )
    checkout_sweep_every_s: float = Field(
        default=300.0,
        ge=10,
        le=86400,
        description="Seconds between a worker's sweeps for unused checkouts and repository "
        "copies (10..86400).",
    )
    git_cache_ttl_s: float = Field(
        default=7 * 86400.0,
        ge=60,
        le=365 * 86400,
        description="A worker removes the machine's copy of a repository and its spare "
        "checkouts (DATA_DIR/git-cache) once no task has used them this long "
        "(60..31536000); the next task of that repository clones it over the network.",
    )
    dashboard_token: SecretStr | None = Field(
        default=None,
        min_length=16,
        description=(
            "Required (as a bearer token, or once as `?token=`) to see `/tasks` and `/metrics`;"
            " when unset, only loopback clients may see them."
        ),
    )

    @field_validator("private_key", mode="before")
    @classmethod
    def _unescape_pem(cls, value: Any) -> Any:
        """Accept a PEM written on one line with literal backslash-n separators."""
        if isinstance(value, str) and "\\n" in value:
            return value.replace("\\n", "\n")
        return value

    @field_validator("private_key")
    @classmethod
    def _looks_like_pem(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().lstrip().startswith(PEM_HEADER):
            raise ValueError("must be a PEM private key (starting with -----BEGIN)")
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _key_from_path(self) -> Settings:
        if self.private_key is None and self.private_key_path is not None:
            try:
                text = self.private_key_path.read_text(encoding="utf-8")
            except OSError as exc:
                raise ValueError(f"PRIVATE_KEY_PATH: cannot read {self.private_key_path}") from exc
            self.private_key = self._looks_like_pem(SecretStr(text))
        return self

    @property
    def bot_login(self) -> str | None:
        """The App's bot user, as it appears in assignees and senders."""
        return f"{self.app_slug}[bot]" if self.app_slug else None

    @property
    def git_base_url(self) -> str:
        """Where repositories are cloned from: GITHUB_GIT_URL, or derived from the API URL."""
        if self.github_git_url:
            return self.github_git_url.rstrip("/")
        api = self.github_api_url.rstrip("/")
        if api == "https://api.github.com":
            return "https://github.com"
        return api.removesuffix("/api/v3")

    def require(self, *names: str) -> None:
        """Fail with one message naming every missing variable a process needs."""
        missing = [name.upper() for name in names if getattr(self, name) is None]
        if missing:
            raise SettingsError(f"missing required setting(s): {', '.join(missing)}")


def load_settings(
    environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")
) -> Settings:
    """Read and validate settings; errors name the environment variable at fault.

    With `environ` given (tests), only that mapping is read, not the process environment.
    """
    try:
        if environ is None:
            return Settings(_env_file=env_file)
        values = {key.lower(): value for key, value in environ.items()}
        return _ExplicitSettings.model_validate(
            {k: v for k, v in values.items() if k in _FIELDS and v != ""}
        )
    except ValidationError as exc:
        raise SettingsError(_describe(exc)) from None


_FIELDS = frozenset(Settings.model_fields)


class _ExplicitSettings(Settings):
    """Settings read from a given mapping only (no process environment, no .env)."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        *_other: PydanticBaseSettingsSource,
        **_named: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)


def _describe(exc: ValidationError) -> str:
    lines = []
    for error in exc.errors(include_input=False, include_url=False):
        where = str(error["loc"][0]).upper() if error["loc"] else "settings"
        lines.append(f"{where}: {error['msg']}")
    return "invalid settings:\n  " + "\n  ".join(lines)
