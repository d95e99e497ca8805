"""Text files decoded so that writing them back changes only what an edit changed.

A file is read as bytes and decoded into a :class:`TextFile`: its text with its own line
endings (``\\r\\n`` kept), its encoding and its byte-order mark. Writing encodes with the
same encoding and mark, so the bytes outside an edit stay identical. The encoding is:

- the one a byte-order mark names (UTF-8, UTF-16);
- UTF-8 when the bytes are valid UTF-8;
- the one the file declares (a Python ``coding:`` cookie, an XML or HTML ``charset``);
- otherwise Windows-1252, then Latin-1, when the text has no control characters (both map
  every byte they decode back to itself).

A file with NUL bytes is binary, and one that fits none of these is undecodable: both are
refused with a message that says so (:class:`NotText`).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from workers.agents.toolerrors import ToolError

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_DECLARED_RE = re.compile(
    rb"(?:^[ \t\f]*#.*?coding[:=][ \t]*|<\?xml[^>]*encoding=[\"']|<meta[^>]*charset=[\"']?)"
    rb"([-\w.]+)",
    re.IGNORECASE | re.MULTILINE,
)
_CONTROL_RE = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")
_LEGACY = ("cp1252", "latin-1")
SNIFF_BYTES = 8192


class NotText(ToolError):
    """A binary or undecodable file; the message says which and what to do."""


@dataclass(frozen=True)
class TextFile:
    text: str
    encoding: str = "utf-8"
    bom: bytes = b""

    @property
    def newline(self) -> str:
        """``"\\r\\n"``, ``"\\n"`` or ``"mixed"``: the file's line endings."""
        crlf = self.text.count("\r\n")
        lone = self.text.count("\n") - crlf
        if crlf and lone:
            return "mixed"
        return "\r\n" if crlf else "\n"

    def describe(self) -> str:
        """What is unusual about the file (empty for UTF-8 with LF line endings)."""
        notes = []
        if self.encoding != "utf-8" or self.bom:
            notes.append(f"encoding {self.encoding}{' with BOM' if self.bom else ''}")
        if self.newline != "\n":
            notes.append("CRLF line endings" if self.newline == "\r\n" else "mixed line endings")
        return ", ".join(notes)

    def encode(self, text: str, name: str) -> bytes:
        try:
            return self.bom + text.encode(self.encoding)
        except UnicodeEncodeError as error:
            bad = text[error.start : error.end]
            raise ToolError(
                f"{name!r} is encoded in {self.encoding}, which cannot hold {bad!r}; "
                "use characters that encoding has (or an escape the file's language knows)"
            ) from None


def _declared(data: bytes) -> str | None:
    match = _DECLARED_RE.search(data[:1024])
    if match is None:
        return None
    try:
        return codecs.lookup(match[1].decode("ascii")).name
    except (LookupError, UnicodeDecodeError):
        return None


def _attempt(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None


def decode(data: bytes, name: str) -> TextFile:
    """``data`` as a :class:`TextFile`; raises :class:`NotText`."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            text = _attempt(data[len(bom) :], encoding)
            if text is not None:
                return TextFile(text, encoding, bom)
    if b"\x00" in data[:SNIFF_BYTES]:
        raise NotText(
            f"{name!r} is a binary file (it contains NUL bytes); it is not shown or edited"
        )
    text = _attempt(data, "utf-8")
    if text is not None:
        return TextFile(text)
    declared = _declared(data)
    for encoding in ((declared,) if declared else ()) + _LEGACY:
        text = _attempt(data, encoding)
        if text is not None and not _CONTROL_RE.search(text):
            return TextFile(text, encoding)
    raise NotText(
        f"{name!r} is neither UTF-8 nor text in a declared or Latin-1 encoding; it is not "
        "shown or edited (rewrite it whole with write_file only if it must change)"
    )


def to_newlines(text: str, newline: str) -> str:
    """``text`` with every line ending made ``newline`` (``"\\n"`` or ``"\\r\\n"``)."""
    plain = text.replace("\r\n", "\n")
    return plain if newline == "\n" else plain.replace("\n", newline)
