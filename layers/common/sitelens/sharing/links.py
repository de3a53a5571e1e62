"""A report's or an audit's share link: an id of 128 random bits, minted once with the
record and stored on it, so that no one can reach a share view by counting (their own ids
are counters). Websites are shared by domain, which their owners publish anyway."""

from __future__ import annotations

import re
import secrets

SHARE_ID_BYTES = 16  # 128 bits: guessing one of a billion live links takes ~10^29 tries
# what `secrets.token_urlsafe(SHARE_ID_BYTES)` makes: 22 characters of base64url
_SHARE_ID = re.compile(r"[A-Za-z0-9_-]{22}")


def new_share_id() -> str:
    """A fresh share id for a report or an audit."""
    return secrets.token_urlsafe(SHARE_ID_BYTES)


def is_share_id(text: str) -> bool:
    """Whether `text` could be a share id (anything else names no report, unread)."""
    return _SHARE_ID.fullmatch(text) is not None


def report_url(base_url: str, share_id: str) -> str:
    """The report's share page on the SEO API at `base_url`; its JSON routes are
    `/api/v1/share/reports/{share_id}` and `.../unlock` on the same base."""
    return f"{base_url}/share/reports/{share_id}"


def audit_url(base_url: str, share_id: str) -> str:
    """The audit's share page on the SEO API at `base_url`; its JSON routes are
    `/api/v1/share/audits/{share_id}` and `.../unlock` on the same base."""
    return f"{base_url}/share/audits/{share_id}"
