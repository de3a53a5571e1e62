"""A brand's logo: fetched once, when the brand is set, through the report fetcher's SSRF
guard (https only here, public addresses only, checked after DNS and at every redirect,
its timeouts), at most `MAX_BYTES`, and kept only when its bytes are a PNG, JPEG or WebP
image. SVG is refused: it is a document that can carry scripts and links, and mail clients
and PDF renderers draw it unevenly. The stored copy is what pages and emails show: a
client's reader never fetches the brand owner's server."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sitelens.core import errors
from sitelens.core.config import settings
from sitelens.data import brands as stored_brands
from sitelens.seo import fetch
from sitelens.seo.connections import Session

MAX_BYTES = 256 * 1024  # a header logo; an item holds 400 KB
FIELD = "logo_url"
TOO_LARGE = f"The logo must not be larger than {MAX_BYTES // 1024} KB."
NOT_AN_IMAGE = "The logo must be a PNG, JPEG or WebP image."
NOT_FOUND = "The logo could not be fetched (HTTP {status})."


@dataclass(frozen=True)
class Logo:
    sha256: str
    content_type: str
    body: bytes


def sniffed_type(body: bytes) -> str | None:
    """The image type the bytes are (their signature, whatever the server said), or None."""
    if body.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if body.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if len(body) >= 12 and body[:4] == b"RIFF" and body[8:12] == b"WEBP":
        return "image/webp"
    return None


def fetched(url: str) -> Logo:
    """The logo at `url`, checked; 422 on `logo_url` with one sentence otherwise. Nothing
    is stored here."""
    session = Session()
    try:
        response = fetch.get(session, url, html_only=False, read_body=True, cap=MAX_BYTES + 1)
    except fetch.FetchError as err:
        raise errors.Invalid.field(FIELD, str(err)) from None
    finally:
        session.close()
    if response.status != 200:
        raise errors.Invalid.field(FIELD, NOT_FOUND.format(status=response.status))
    plain = response.url.lower().startswith("http://")
    if plain and not settings().allow_private_urls:  # redirected to plain http
        raise errors.Invalid.field(FIELD, "The logo url must stay on https.")
    if len(response.body) > MAX_BYTES:
        raise errors.Invalid.field(FIELD, TOO_LARGE)
    content_type = sniffed_type(response.body)
    if content_type is None:
        raise errors.Invalid.field(FIELD, NOT_AN_IMAGE)
    return Logo(hashlib.sha256(response.body).hexdigest(), content_type, response.body)


def store(logo: Logo) -> None:
    stored_brands.put_logo(logo.sha256, logo.content_type, logo.body)


def stored(sha256: str) -> tuple[str, bytes] | None:
    """(content type, bytes) of a stored logo; None for a name that is none."""
    if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
        return None
    return stored_brands.get_logo(sha256)
