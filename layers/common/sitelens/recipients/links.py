"""The signed links a recipient is mailed: one that confirms the address (double opt-in),
one in every digest that removes it (RFC 8058's one-click too). Each names the account, the
target and the address's id, never the address. A GET only shows what the link would do
(mail scanners fetch links); a POST does it."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlencode

from sitelens.core import clock, errors
from sitelens.data import recipients as stored
from sitelens.tokens import signing

CONFIRM = "unsubscribe:recipient-confirm"  # signed with the unsubscribe links' key
UNSUBSCRIBE = "unsubscribe:recipient"
CONFIRM_SECONDS = 7 * 24 * 3600  # a confirmation is acted on soon, or asked for again
UNSUBSCRIBE_SECONDS = 60 * 24 * 3600  # as the account's own digest links
INVALID = "The link is invalid or has expired."
CONFIRM_PATH = "/api/v1/recipients/confirm"
UNSUBSCRIBE_PATH = "/api/v1/recipients/unsubscribe"


def _token(purpose: str, seconds: int, account: str, target: str, address_id: str) -> str:
    data = {"a": account, "t": target, "r": address_id}
    return signing.sign(data, purpose, time.time() + seconds)


def confirm_url(base: str, account: str, target: str, address_id: str) -> str:
    token = _token(CONFIRM, CONFIRM_SECONDS, account, target, address_id)
    return f"{base}{CONFIRM_PATH}?{urlencode({'token': token})}"


def unsubscribe_url(base: str, account: str, target: str, address_id: str) -> str:
    token = _token(UNSUBSCRIBE, UNSUBSCRIBE_SECONDS, account, target, address_id)
    return f"{base}{UNSUBSCRIBE_PATH}?{urlencode({'token': token})}"


def _read(token: str, purpose: str) -> tuple[str, str, str]:
    """(account, target, address id) of a valid token; 422 on `token` otherwise."""
    try:
        data: dict[str, Any] = signing.verify(token, purpose)
        return str(data["a"]), str(data["t"]), str(data["r"])
    except (signing.BadToken, KeyError, TypeError, ValueError):
        raise errors.Invalid.field("token", INVALID) from None


def _found(token: str, purpose: str) -> tuple[str, str, str, dict[str, Any] | None]:
    account, target, address_id = _read(token, purpose)
    return account, target, address_id, stored.get(account, target, address_id)


def to_confirm(token: str) -> str | None:
    """The address a confirmation link would confirm, changing nothing; None when it has
    been removed since. 422 on `token` for a bad link."""
    *_, found = _found(token, CONFIRM)
    return str(found["email"]) if found else None


def confirm(token: str) -> str | None:
    """Confirm the link's address; the address, or None when it was removed since."""
    account, target, address_id, found = _found(token, CONFIRM)
    if found is None or not stored.confirm(account, target, address_id, clock.now_iso()):
        return None
    return str(found["email"])


def to_unsubscribe(token: str) -> str | None:
    """The address an unsubscribe link would remove, changing nothing; None when gone."""
    *_, found = _found(token, UNSUBSCRIBE)
    return str(found["email"]) if found else None


def unsubscribe(token: str) -> str | None:
    """Remove the link's recipient; its address, or None when it was gone already."""
    account, target, address_id, found = _found(token, UNSUBSCRIBE)
    if found is None or not stored.remove(account, target, address_id):
        return None
    return str(found["email"])
