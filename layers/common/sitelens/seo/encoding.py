"""A page's bytes as text, decoded the way browsers decide (WHATWG Encoding and HTML).

In order: a byte-order mark; the Content-Type `charset`; a `<meta charset>` or
`<meta http-equiv="Content-Type">` found by the prescan of the first 1,024 bytes; and a
`<meta>` charset that the parser meets later, which makes browsers decode the page again
("change the encoding"). Without any, UTF-8, or windows-1252 when the bytes are not valid
UTF-8 (the legacy default of most browsers' locales). Labels are the WHATWG's, through
`webencodings` (latin1 and ascii are windows-1252, gb2312 is GBK...); a `<meta>` naming
UTF-16 means UTF-8, since ASCII-readable bytes cannot be UTF-16.
"""

from __future__ import annotations

import codecs
import re
from typing import Final, NamedTuple

import webencodings

PRESCAN_BYTES: Final = 1024  # where the HTML standard's prescan stops
_BOMS: Final = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16le"),
    (codecs.BOM_UTF16_BE, "utf-16be"),
)
_CHARSET: Final = re.compile(r"""charset\s*=\s*["']?\s*([^\s"';>]+)""", re.IGNORECASE)
_COMMENT: Final = re.compile(rb"<!--.*?-->", re.DOTALL)
_META: Final = re.compile(rb"<meta[\s/]([^>]*)>?", re.IGNORECASE)
_ATTRIBUTE: Final = re.compile(
    rb"""([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*)))?""", re.IGNORECASE
)


class Decoded(NamedTuple):
    text: str
    encoding: str  # the WHATWG name, e.g. "utf-8", "windows-1252", "shift_jis"
    source: str  # "bom", "header", "prescan", "meta", "default"


def charset_in(text: str) -> str | None:
    """The `charset=` parameter of a Content-Type value or `<meta>` content, lower-cased."""
    match = _CHARSET.search(text)
    return match.group(1).lower() if match else None


def lookup(label: str | None) -> webencodings.Encoding | None:
    """The WHATWG encoding of a label, or None for an unknown one."""
    return webencodings.lookup(label.strip()) if label else None


def _for_meta(encoding: webencodings.Encoding | None) -> webencodings.Encoding | None:
    if encoding is not None and encoding.name.startswith("utf-16"):
        return webencodings.lookup("utf-8")
    if encoding is not None and encoding.name == "x-user-defined":
        return webencodings.lookup("windows-1252")
    return encoding


def prescan(head: bytes) -> webencodings.Encoding | None:
    """The encoding a `<meta>` in these bytes declares (the HTML standard's prescan,
    simplified to what matters: comments skipped, attributes read, first hit wins)."""
    for match in _META.finditer(_COMMENT.sub(b"", head)):
        attributes = {
            name.lower(): (a or b or c or b"").decode("ascii", "replace")
            for name, a, b, c in _ATTRIBUTE.findall(match.group(1))
        }
        label = attributes.get(b"charset")
        if label is None and attributes.get(b"http-equiv", "").lower() == "content-type":
            label = charset_in(attributes.get(b"content", ""))
        encoding = _for_meta(lookup(label))
        if encoding is not None:
            return encoding
    return None


def _decode(body: bytes, encoding: webencodings.Encoding) -> str:
    return encoding.codec_info.decode(body, "replace")[0]


def decode(body: bytes, content_type: str = "") -> Decoded:
    """The page's text before parsing, and how its encoding was chosen."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return Decoded(body[len(bom) :].decode(name, "replace"), name, "bom")
    header = lookup(charset_in(content_type))
    if header is not None:
        return Decoded(_decode(body, header), header.name, "header")
    declared = prescan(body[:PRESCAN_BYTES])
    if declared is not None:
        return Decoded(_decode(body, declared), declared.name, "prescan")
    try:
        return Decoded(body.decode("utf-8"), "utf-8", "default")
    except UnicodeDecodeError:
        return Decoded(body.decode("cp1252", "replace"), "windows-1252", "default")


def redecoded(body: bytes, decoded: Decoded, meta_label: str | None) -> Decoded | None:
    """The page decoded again when the parser met a `<meta>` charset after the prescan and
    the encoding was only a default guess, as browsers do; None when nothing changes."""
    if decoded.source != "default":
        return None
    encoding = _for_meta(lookup(meta_label))
    if encoding is None or encoding.name == decoded.encoding:
        return None
    return Decoded(_decode(body, encoding), encoding.name, "meta")
