"""Websites: creating, reading, changing and deleting the analytics collection's records."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from sitelens.core import clock, errors, hosts
from sitelens.core.log import logger
from sitelens.data import queues
from sitelens.data import websites as stored_websites
from sitelens.records import listing, privacy
from sitelens.websites.rules import (
    DEFAULT_TIMEZONE,
    DEFAULT_TRAFFIC_ALERTS,
    DOMAIN_TAKEN,
    RENAMED_REDIRECT_SECONDS,
    RENAMED_TRACKED_SECONDS,
)

if TYPE_CHECKING:  # the input models import pydantic, which only parsing handlers need
    from sitelens.websites.inputs import WebsiteCreate, WebsiteListQuery, WebsiteUpdate


def show(record: dict[str, Any]) -> dict[str, Any]:
    """The record as the API returns it: the password only as whether one is set."""
    return {
        "id": record["id"],
        "domain": record["domain"],
        "privacy": record["privacy"],
        "password": bool(record.get("password_hash")),
        "email": record["email"],
        "exclude_bots": record["exclude_bots"],
        "exclude_params": record["exclude_params"],
        "exclude_ips": record["exclude_ips"],
        "timezone": record.get("timezone") or DEFAULT_TIMEZONE,
        "traffic_alerts": int(record.get("traffic_alerts", DEFAULT_TRAFFIC_ALERTS)),
        "favorite": bool(record["favorite"]),
        "favorited_at": record.get("favorited_at"),
        # proof of owning the domain (sitelens.domains, docs/websites-domains.md)
        "verified": bool(record.get("verified_at")),
        "verified_at": record.get("verified_at"),
        "tracking_from": record.get("tracking_from"),
        "released_at": record.get("released_at"),
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
    }


def site_of(record: dict[str, Any]) -> str:
    """The key of a website's domain claim, which tracked hits find it by."""
    return hosts.site(record["domain"])


def create(account_id: str, fields: WebsiteCreate) -> dict[str, Any]:
    """A new website of the account; 422 when its domain is taken by anyone (the same
    sentence whoever holds it: proving ownership is `sitelens.domains`)."""
    site = hosts.site(fields.domain)
    # The transaction refuses a taken claim too; asking first spares an id for nothing.
    if stored_websites.is_claimed(site):
        raise errors.Invalid.field("domain", DOMAIN_TAKEN)
    record = new_record(account_id, fields)
    try:
        stored_websites.create_with_claim(record, site)
    except stored_websites.DomainTaken:
        raise errors.Invalid.field("domain", DOMAIN_TAKEN) from None
    return show(record)


def new_record(account_id: str, fields: WebsiteCreate) -> dict[str, Any]:
    """A new website's record, with a new id and the defaults of the fields not sent."""
    password, _ = privacy.PasswordRule(fields.privacy, fields.password).changes(None)
    now = clock.now_iso()
    return {
        "account": account_id,
        "id": stored_websites.allocate_id(),
        "domain": fields.domain,
        "search": fields.domain,
        "privacy": fields.privacy or 0,
        "email": fields.email if fields.email is not None else 0,
        "exclude_bots": fields.exclude_bots if fields.exclude_bots is not None else 1,
        "exclude_params": fields.exclude_params or "",
        "exclude_ips": fields.exclude_ips or "",
        "timezone": fields.timezone or DEFAULT_TIMEZONE,
        "traffic_alerts": (
            fields.traffic_alerts if fields.traffic_alerts is not None else DEFAULT_TRAFFIC_ALERTS
        ),
        "favorite": False,
        "favorited_at": None,
        "created_at": now,
        "updated_at": now,
        **password,
    }


def stored(account_id: str, website_id: int) -> dict[str, Any]:
    """The stored website; 404 when it is not the account's."""
    record = stored_websites.get(account_id, website_id)
    if record is None:
        raise errors.NotFound()
    return record


def get(account_id: str, website_id: int) -> dict[str, Any]:
    return show(stored(account_id, website_id))


def writable(account_id: str, website_id: int) -> dict[str, Any]:
    """The stored website, to change something of it (its annotations); 404 as `stored`,
    409 when it is released (its domain moved to another account: read-only)."""
    record = stored(account_id, website_id)
    if record.get("released_at"):
        raise stored_websites.Released()
    return record


class DomainTaken(errors.Conflict):
    """409: a rename to a domain another website holds."""

    message = DOMAIN_TAKEN


class MovePending(errors.Conflict):
    """409: a rename while the domain's move to a prover is in its grace period."""

    message = "The domain is moving to the account that proved it owns it: rename it after."


def update(account_id: str, website_id: int, fields: WebsiteUpdate) -> dict[str, Any]:
    """Apply the fields that were sent, PUT and PATCH alike; 404 when not the account's.
    A new `domain` renames the website (`_rename`): its id, and all kept by it, stay.

    The fields are applied to the stored website as it is when written: a concurrent
    update never mixes with this one (see `data.records.update`).
    """
    sent: dict[str, Any] = fields.model_dump(
        include={
            "privacy",
            "email",
            "exclude_bots",
            "exclude_params",
            "exclude_ips",
            "timezone",
            "traffic_alerts",
        },
        exclude_none=True,
    )

    rule = privacy.PasswordRule(fields.privacy, fields.password)

    def change(current: dict[str, Any]) -> dict[str, Any]:
        password, removed = rule.changes(current)
        record = {k: v for k, v in current.items() if k not in removed}
        record.update(sent, **password)
        now = clock.after(current["updated_at"])
        if fields.favorite is not None and bool(fields.favorite) != bool(current["favorite"]):
            record["favorite"] = bool(fields.favorite)
            record["favorited_at"] = now if fields.favorite else None
        record["updated_at"] = now
        if fields.domain is not None and fields.domain != current["domain"]:
            record.update(domain=fields.domain, search=fields.domain)
            if hosts.site(fields.domain) != site_of(current):  # a proof was of the old one
                record.pop("verified_at", None)
                record.pop("verified_by", None)
        return record

    current = stored(account_id, website_id)
    rule.changes(current)  # refused early; a password is hashed once, before any retry
    site = site_of(current)
    new_site = hosts.site(fields.domain) if fields.domain is not None else site
    if new_site != site:
        record = _rename(account_id, website_id, change, site, new_site)
    else:
        record = stored_websites.update(account_id, website_id, change, site)
    if record is None:
        raise errors.NotFound()
    return show(record)


def _rename(
    account_id: str, website_id: int, change: Any, site: str, new_site: str
) -> dict[str, Any] | None:
    """Rename in one transaction: the old claim released, the new taken (409 when another
    website holds it), and a note of the old site kept: its hits count to the website for
    RENAMED_TRACKED_SECONDS, its share URLs redirect for RENAMED_REDIRECT_SECONDS."""
    claim = stored_websites.get_claim(site)
    if claim is not None and clock.now_iso() < claim.get("moves_at", ""):
        raise MovePending()
    now = int(time.time())
    note = {
        "renamed_at": clock.now_iso(),
        "tracked_until": now + RENAMED_TRACKED_SECONDS,
        "expires_at": now + RENAMED_REDIRECT_SECONDS,
    }
    try:
        return stored_websites.rename(account_id, website_id, change, (site, new_site), note)
    except stored_websites.DomainTaken:
        raise DomainTaken() from None
    except stored_websites.ClaimChanged:
        raise errors.Conflict() from None


def delete(account_id: str, website_id: int) -> None:
    """Delete the website and its domain claim together; 404 when not the account's.

    Its hits stop counting at once in this container (elsewhere within the caches' 60 s);
    its statistics are removed in the background, after a delay that lets hits still in
    flight be dropped first. A released website (its domain moved to another account) is
    deleted alone: the claim and the statistics of its id are that account's now.
    """
    record = stored(account_id, website_id)
    deleted = stored_websites.delete_with_claim(account_id, website_id, site_of(record))
    if deleted is None:
        raise errors.NotFound()
    if not deleted.get("released_at"):
        _schedule_stats_removal(website_id)


def _schedule_stats_removal(website_id: int) -> None:
    """Never fails the delete: if the message cannot be sent, the website is gone anyway and
    its counters, which nothing can reach any more, are only left behind (and logged)."""
    try:
        queues.send_cleanup(website_id)
    except Exception:
        logger.exception("stats removal not queued", extra={"website_id": website_id})


def list_page(account_id: str, query: WebsiteListQuery) -> listing.Page:
    return listing.list_page(stored_websites.COLLECTION, account_id, query, query.sort_by, show)
