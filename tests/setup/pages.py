"""Reading the setup page as a browser would: the form's action and its hidden manifest."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True)
class RegisterForm:
    action: str
    manifest: str

    @property
    def state(self) -> str:
        return parse_qs(urlsplit(self.action).query)["state"][0]


def register_form(page: str) -> RegisterForm:
    form = re.search(r'<form method="post" action="([^"]+)" id="register">(.*?)</form>', page, re.S)
    assert form, page
    manifest = re.search(r'name="manifest" value="([^"]*)"', form.group(2))
    assert manifest, form.group(2)
    return RegisterForm(html.unescape(form.group(1)), html.unescape(manifest.group(1)))


def local_path(url: str) -> str:
    """The path and query of GitHub's redirect, for the TestClient."""
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"
