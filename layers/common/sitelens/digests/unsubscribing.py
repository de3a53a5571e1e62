"""The links that stop a website's digests without a key: signed tokens naming the account
and its websites (or all of them, for the digest's one-click link, so that a token stays
short however many websites the account has), valid for 60 days (a digest is read late,
but not forever)."""

from __future__ import annotations

import time
from typing import Any

from sitelens.core import clock, errors, hosts
from sitelens.data import websites as stored_websites
from sitelens.data.records import Busy
from sitelens.tokens import signing

PURPOSE = "unsubscribe"
TOKEN_SECONDS = 60 * 24 * 3600
INVALID = "The link is invalid or has expired."
EVERY_WEBSITE = "all"  # every website the account has when the link is used


def unsubscribe_token(account_id: str, website_ids: list[int] | None) -> str:
    """A token for these websites, or (None) for every website of the account."""
    websites = EVERY_WEBSITE if website_ids is None else website_ids
    return signing.sign(
        {"account": account_id, "websites": websites}, PURPOSE, time.time() + TOKEN_SECONDS
    )


def to_unsubscribe(token: str) -> list[str]:
    """The domains whose digests `token` would stop (its websites that still exist),
    changing nothing: what a link's GET shows, since mail scanners fetch links. 422 on
    `token` as for `unsubscribe`."""
    account, website_ids = _read(token)
    found = (stored_websites.get(account, website_id) for website_id in website_ids)
    return [str(record["domain"]) for record in found if record is not None]


def unsubscribe(token: str) -> list[str]:
    """Set `email` to 0 on the token's websites that still exist; their domains. 422 on
    `token` for a token that is malformed, tampered with or expired."""
    account, website_ids = _read(token)
    stopped = []
    for website_id in website_ids:
        current = stored_websites.get(account, website_id)
        if current is None:
            continue  # deleted since: nothing to stop
        if int(current["email"]) == 0:
            stopped.append(str(current["domain"]))  # stopped already: no write
            continue
        try:
            record = stored_websites.update(
                account, website_id, _digests_off, hosts.site(str(current["domain"]))
            )
        except Busy:
            raise errors.Conflict() from None
        if record is not None:
            stopped.append(str(record["domain"]))
    return stopped


def _read(token: str) -> tuple[str, list[int]]:
    """The account and website ids a valid token names; 422 on `token` otherwise."""
    try:
        data = signing.verify(token, PURPOSE)
        account, websites = str(data["account"]), data["websites"]
        if websites != EVERY_WEBSITE:
            return account, [int(i) for i in websites]
    except (signing.BadToken, KeyError, TypeError, ValueError):
        raise errors.Invalid.field("token", INVALID) from None
    return account, [int(website["id"]) for website in stored_websites.of_account(account)]


def _digests_off(record: dict[str, Any]) -> dict[str, Any]:
    """The website with `email` 0, changed now (as an update through the API would be)."""
    return {**record, "email": 0, "updated_at": clock.after(record["updated_at"])}
