"""Websites: the analytics collection's records, their domain claims, and short caches of
look-ups for the tracking path.

A website's domain is unique across accounts: a claim item keyed by the domain's site key
(`hosts.site`) is written in the same transaction as the website and deleted with it.
Tracking looks websites up by host and the aggregator checks that they still exist,
through caches in the warm container; every write here clears what it changes from them.
"""

from __future__ import annotations

import time
from typing import Any

from sitelens.core import scopes
from sitelens.core.config import settings
from sitelens.data import records
from sitelens.data.clients import every_item
from sitelens.data.items import Item, from_item
from sitelens.data.records import Collection

COLLECTION = Collection(
    name="websites",
    table=lambda: settings().websites_table,
    orders={"domain": lambda record: record["domain"]},
    filters={"favorite": lambda record: "1" if record["favorite"] else "0"},
)

# A deleted website stops being counted everywhere within 60 s: 30 s for a cached lookup
# by host, 30 s for the aggregator's cached existence check.
CACHE_SECONDS = 30.0
# Unknown hosts are remembered briefly too, so a flood of hits costs few reads.
UNKNOWN_CACHE_SECONDS = 5.0
_MAX_CACHED = 10_000

_by_host: dict[str, tuple[float, Item | None]] = {}
_exists: dict[tuple[str, int], tuple[float, bool]] = {}


class DomainTaken(Exception):
    """Another website holds the domain's claim."""


def allocate_id() -> int:
    return records.allocate_id(COLLECTION)


def get(account: str, website_id: int) -> Item | None:
    return records.get(COLLECTION, account, website_id)


def by_domain(site: str) -> Item | None:
    """The website whose domain has this site key, read now (not cached: a share view must
    see a privacy change at once)."""
    claim = records.get_claim(COLLECTION, site)
    return get(claim["owner"], int(claim["record_id"])) if claim else None


def of_account(account: str) -> list[Item]:
    """Every website of the account (`id`, `domain`, `privacy`, `email`, and the goals and
    saved funnels a digest shows), in id order."""
    query: dict[str, Any] = {
        "TableName": settings().websites_table,
        "KeyConditionExpression": "account = :account",
        "ExpressionAttributeValues": {":account": {"S": account}},
        "ProjectionExpression": "id, #domain, privacy, email, goals, funnels",
        "ExpressionAttributeNames": {"#domain": "domain"},
    }
    return scopes.visible(COLLECTION.name, (from_item(item) for item in every_item(query)))


def is_claimed(site: str) -> bool:
    return records.get_claim(COLLECTION, site) is not None


def create_with_claim(record: Item, site: str) -> Item:
    """Store a new website with the claim of its domain; DomainTaken if another has it."""
    try:
        stored = records.create(COLLECTION, record, claim=site)
    except records.Conflict:
        raise DomainTaken(site) from None
    forget(record, site)
    return stored


def update(account: str, website_id: int, change: records.Change, site: str) -> Item | None:
    """Apply `change` to the stored website, again if another write came first (see
    `records.update`); the website written, or None when there is none."""
    record = records.update(COLLECTION, account, website_id, change)
    forget({"account": account, "id": website_id}, site)
    return record


def delete_with_claim(account: str, website_id: int, site: str) -> Item | None:
    """Delete a website and its domain claim together; the website deleted, or None."""
    deleted = records.delete(COLLECTION, account, website_id, claim=lambda _: site)
    forget({"account": account, "id": website_id}, site)
    return deleted


# -- cached look-ups for tracking -------------------------------------------------------


def by_host(site: str) -> Item | None:
    """The website whose domain has this site key, cached 30 s (unknown hosts 5 s); the
    cache holds what is stored, the scope applies to what it hands out."""
    scope = scopes.current()
    now = time.monotonic()
    cached = _by_host.get(site)
    if cached and cached[0] > now:
        website = cached[1]
    else:
        website = None
        claim = records.get_claim(COLLECTION, site)
        if claim is not None:
            website = records.stored(COLLECTION, claim["owner"], int(claim["record_id"]))
        seconds = CACHE_SECONDS if website else UNKNOWN_CACHE_SECONDS
        _remember(_by_host, site, (now + seconds, website))
    return website if website is not None and scope.admits(COLLECTION.name, website) else None


def exists(account: str, website_id: int) -> bool:
    """Whether the website is still there (for the aggregator), cached 30 s; as stored,
    then within the scope."""
    if not scopes.current().sees_website(website_id):
        return False
    key = (account, website_id)
    now = time.monotonic()
    cached = _exists.get(key)
    if cached and cached[0] > now:
        return bool(cached[1])
    found = records.stored(COLLECTION, account, website_id) is not None
    _remember(_exists, key, (now + CACHE_SECONDS, found))
    return found


def forget(website: Item, site: str) -> None:
    """Drop a created, changed or deleted website from this container's caches."""
    _by_host.pop(site, None)
    _exists.pop((website["account"], int(website["id"])), None)


def forget_all() -> None:
    """Empty this container's website caches (tests)."""
    _by_host.clear()
    _exists.clear()


def _remember(cache: dict[Any, Any], key: Any, entry: Any) -> None:
    if len(cache) >= _MAX_CACHED:  # many hosts (or an attack): start afresh, stay small
        cache.clear()
    cache[key] = entry
