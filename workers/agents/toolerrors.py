"""The errors a tool call answers with: the message goes back to the model."""

from __future__ import annotations


class ToolError(Exception):
    """A tool call that cannot be done; the message goes back to the model."""


class PathRefused(ToolError):
    """A path outside the checkout (or into ``.git``)."""
