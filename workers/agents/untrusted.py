"""Untrusted text (issue bodies, comments, file contents, diffs) as quoted data.

Issue and comment text is cleaned first: hidden HTML comments (which GitHub does not render,
so a reader never sees them) and invisible characters (zero-width, bidi controls, tag
characters, variation selectors) are removed. In diffs and file contents invisible
characters are made visible instead (``<U+200B>``), so a reviewer can see them.
"""

from __future__ import annotations

import re
import unicodedata

_HTML_COMMENT_RE = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_FENCE_RUN_RE = re.compile(r"`{3,}")
_CLOSING = "</untrusted-data>"
_KEEP = frozenset("\n\t")


def _invisible(char: str) -> bool:
    if char in _KEEP:
        return False
    code = ord(char)
    if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:
        return True  # variation selectors
    return unicodedata.category(char) in ("Cf", "Cc", "Co", "Cn")


def strip_hidden(text: str) -> str:
    """``text`` without HTML comments and invisible characters, with ``\\n`` line ends."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _HTML_COMMENT_RE.sub("", text)
    return "".join(c for c in text if not _invisible(c))


def show_invisible(text: str) -> str:
    """``text`` with every invisible character written as ``<U+XXXX>``."""
    return "".join(f"<U+{ord(c):04X}>" if _invisible(c) and c != "\r" else c for c in text)


def quoted(source: str, text: str) -> str:
    """``text`` fenced and labelled as data, so instructions inside it carry no authority.

    Every system prompt says what ``<untrusted-data>`` means; the block carries no more.
    """
    longest = max((len(m) for m in _FENCE_RUN_RE.findall(text)), default=2)
    fence = "`" * max(3, longest + 1)
    body = text.replace(_CLOSING, "</untrusted-data\u2060>").rstrip("\n")
    return f'<untrusted-data source="{source}">\n{fence}\n{body}\n{fence}\n{_CLOSING}'


def issue_text(title: str, body: str) -> str:
    """The issue as the agents see it: cleaned and quoted."""
    clean = f"# {strip_hidden(title).strip()}\n\n{strip_hidden(body).strip()}"
    return quoted("the issue", clean)
