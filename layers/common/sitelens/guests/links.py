"""Guest links of read keys: made, listed and revoked through the keys API (the session a
link's token opens is `guests.sessions`).

A link's token is a `tokens.signing` token for the purpose "guest" carrying the account,
the key's id and the link's id (which find the link), and the link's grant, 128 random bits
kept with the link that the token must match: never the key's secret, and nothing a holder
of the signing keys could count to. It ends when the link does.

Only a read key limited to websites or projects may have links: a client login shows what
its client may see, and a key over the whole account (or one that writes) is a staff
key, not a client's.
"""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote

from sitelens import sharing
from sitelens.accounts import keyring
from sitelens.core import clock, errors
from sitelens.core.config import ConfigError, settings
from sitelens.data import accounts as stored_accounts
from sitelens.data import audits as stored_audits
from sitelens.data import guests as stored_guests
from sitelens.data import keys as stored_keys
from sitelens.data import reports as stored_reports
from sitelens.data import websites as stored_websites
from sitelens.guests.sessions import GRANT_BYTES, PURPOSE
from sitelens.records import listing
from sitelens.sharing.access import Kind
from sitelens.tokens import signing

if TYPE_CHECKING:
    from sitelens.guests.inputs import LinkCreate
    from sitelens.records.inputs import PageQuery

DEFAULT_SECONDS = 7 * 86_400  # a link made without an expiry ends in a week
MAX_SECONDS = 90 * 86_400  # as `inputs.MAX_LINK_DAYS`
MAX_LINKS_PER_KEY = 20  # live links of one key: one Query lists them
NOT_A_GUEST = "Only a read key limited to websites or projects can have guest links."


def _iso(seconds: float) -> str:
    return clock.iso(datetime.fromtimestamp(seconds, UTC))


def _guest_key(account_id: str, key_id: int) -> dict[str, Any]:
    """The key's entry, when it may have guest links; 404 when the account has no such key,
    422 when it is not a limited read key or has expired."""
    entry = stored_keys.get(account_id, str(key_id))
    if entry is None:
        raise errors.NotFound()
    scope = keyring.scope_of(entry.get("scope"))
    if scope.writes or not scope.limited:
        raise errors.Invalid.field("key", NOT_A_GUEST)
    expires_at = entry.get("expires_at")
    if expires_at is not None and time.time() >= float(expires_at):
        raise errors.Invalid.field("key", "The key has expired.")
    return entry


# how each kind of record is read by the account and its id
_READERS = {
    "website": stored_websites.get,
    "report": stored_reports.get,
    "audit": stored_audits.get,
}


def _path(kind: str, record: dict[str, Any]) -> str:
    """The record's share page, on the API that serves it."""
    if kind == "website":
        return f"/share/{quote(str(record['domain']), safe='')}"
    return f"/share/{kind}s/{record['share_id']}"


def share_bases(fallback: str) -> dict[str, str]:
    """The base URL of each kind's share pages: the analytics API's for websites, the SEO
    API's for reports and audits, as configured (`SITELENS_ANALYTICS_BASE_URL`,
    `SITELENS_SEO_BASE_URL`); `fallback` (the request's) where one is not."""
    found = settings()
    try:
        analytics = found.analytics_base_url
    except ConfigError:
        analytics = ""
    seo = found.seo_base_url
    return {"website": analytics or fallback, "report": seo or fallback, "audit": seo or fallback}


def show(link: dict[str, Any]) -> dict[str, Any]:
    """A link as the API lists it: never its token."""
    expires_at = int(link["expires_at"])
    return {
        "id": int(link["id"]),
        "key_id": int(link["key_id"]),
        "record": {"type": link["kind"], "id": int(link["record_id"])},
        "created_at": link["created_at"],
        "expires_at": _iso(expires_at),
    }


def create(
    account_id: str, key_id: int, fields: LinkCreate, bases: dict[str, str]
) -> dict[str, Any]:
    """A new guest link of the account's key to one of its records' share views, with its
    `url` and `token`, shown this once. `bases`: the base URL of each kind's share pages
    (websites on the analytics API, reports and audits on the SEO API). 404 for another
    account's key; 422 for a key that may not have guests, a record the account does not
    have or the key does not reach, or a key with MAX_LINKS_PER_KEY live links."""
    kind, record_id = fields.target()
    entry = _guest_key(account_id, key_id)
    now = time.time()
    record = _READERS[kind](account_id, record_id)
    if record is None:
        raise errors.Invalid.field(kind, f"No {kind} of this account has id {record_id}.")
    guest = sharing.Guest(account_id, keyring.scope_of(entry.get("scope")))
    if not guest.reaches(sharing.Shared(cast(Kind, kind), {**record, "account": account_id})):
        raise errors.Invalid.field(kind, f"The key does not reach {kind} {record_id}.")
    expires_at = int(fields.expires_at or now + DEFAULT_SECONDS)
    if entry.get("expires_at") is not None:
        expires_at = min(expires_at, int(entry["expires_at"]))  # a link ends with its key
    link_id = str(stored_accounts.next_id("guest_links"))
    grant = secrets.token_urlsafe(GRANT_BYTES)
    link = {
        "grant": grant,
        "kind": kind,
        "record_id": record_id,
        "created_at": clock.now_iso(),
        "expires_at": expires_at,
    }
    if not stored_guests.add(account_id, str(key_id), link_id, link, MAX_LINKS_PER_KEY, now):
        raise errors.Invalid.field("key", f"A key may have at most {MAX_LINKS_PER_KEY} links.")
    claims = {"a": account_id, "k": str(key_id), "l": link_id, "g": grant}
    token = signing.sign(claims, PURPOSE, expires_at)
    url = f"{bases[kind]}{_path(kind, record)}?guest={token}"
    return {**show({**link, "id": link_id, "key_id": key_id}), "url": url, "token": token}


def list_page(account_id: str, key_id: int, query: PageQuery) -> listing.Page:
    """One page of the key's live links by id (newest first unless `sort=asc`), read whole
    (a key has at most MAX_LINKS_PER_KEY live ones); 404 when the account has no such key."""
    if stored_keys.get(account_id, str(key_id)) is None:
        raise errors.NotFound()
    now = time.time()
    live = [show(k) for k in stored_guests.of_key(account_id, str(key_id)) if k["expires_at"] > now]
    return listing.id_page(live, account_id, f"keys/{key_id}/links", query)


def revoke(account_id: str, key_id: int, link_id: int) -> None:
    """Delete one link of the account's key: every session it opened closes at once; 404
    when there is no such link."""
    if not stored_guests.delete(account_id, str(key_id), str(link_id)):
        raise errors.NotFound()
