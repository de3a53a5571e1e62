"""The guest session a guest link's token opens (`guests.links` makes the links).

Every share request that carries a token reads the link and the key (two strongly
consistent GetItems): revoking the key or deleting the link closes every session at once,
and a key that expired or a link that ended opens nothing. Only what a share view needs is
imported here, so share functions read no other table.
"""

from __future__ import annotations

import hmac
import time

from sitelens import sharing
from sitelens.accounts.keyring import scope_of
from sitelens.data import guests as stored_guests
from sitelens.data import keys as stored_keys
from sitelens.tokens import signing

PURPOSE = "guest"  # what guest tokens are signed for: never a share proof or a cursor
ID_LENGTH = 18  # ids are counters; anything longer names nothing
# A link's grant: random, so a token cannot be made for a link without having been given it
# (`guests.links`), even by someone holding the signing keys.
GRANT_BYTES = 16


def _grant_matches(stored: object, given: object) -> bool:
    """Whether a token's grant is its link's: never for a link made before grants."""
    if not isinstance(stored, str) or not isinstance(given, str):
        return False
    return hmac.compare_digest(stored.encode(), given.encode())


def opened_by(token: str) -> sharing.Guest | None:
    """The guest session a link's token opens: None for a token that is malformed,
    tampered with, expired, not carrying its link's grant, of a deleted link, or of a key
    revoked, expired or no longer a limited read key."""
    try:
        data = signing.verify(token, PURPOSE)
    except signing.BadToken:
        return None
    ids = [data.get(name) for name in ("a", "k", "l")]
    if not all(isinstance(i, str) and i.isdigit() and len(i) <= ID_LENGTH for i in ids):
        return None
    account_id, key_id, link_id = (str(i) for i in ids)
    grant = data.get("g")
    link = stored_guests.get(account_id, key_id, link_id)
    if link is None or time.time() >= float(link["expires_at"]):
        return None
    if not _grant_matches(link.get("grant"), grant):
        return None
    entry = stored_keys.get(account_id, key_id)
    if entry is None:
        return None  # revoked: its entry went with its lookups
    expires_at = entry.get("expires_at")
    if expires_at is not None and time.time() >= float(expires_at):
        return None
    scope = scope_of(entry.get("scope"))
    if scope.writes or not scope.limited:
        return None
    return sharing.Guest(account_id, scope, float(link["expires_at"]))
