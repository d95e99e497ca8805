"""The controller's named errors."""

from __future__ import annotations


class ControllerError(Exception):
    """Base of the controller's errors."""


class ConfigError(ControllerError, ValueError):
    """A setting in ``config/`` or a repository's settings is invalid; the message names it."""


class OutcomeMismatch(ControllerError):
    """An outcome arrived that the task is not waiting for (a stale or duplicated job)."""
