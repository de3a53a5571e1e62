"""Websites: the analytics collection's records, their domain claims, and short caches of
look-ups for the tracking path.

A website's domain is unique across accounts: a claim item keyed by the domain's site key
(`hosts.site`) is written in the same transaction as the website and deleted with it. A
proof of ownership re-points the claim (`move_claim`) to the prover's record of the same
website id (statistics and warehouse rows are keyed by the id alone, so they move with
it); the old holder's record is released (`released_at`): read-only (`Released`) until
that moment, then answered by no read (`answers`) and removed by the table's TTL
(`expires_at`); docs/websites-domains.md.
Tracking looks websites up by host and the aggregator checks that they still exist,
through caches in the warm container; every write here clears what it changes from them.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from sitelens.core import clock, errors, scopes
from sitelens.core.config import settings
from sitelens.data import records, transactions
from sitelens.data.clients import client, every_item
from sitelens.data.items import Item, Write, from_item, to_attr, to_item
from sitelens.data.records import Collection

COLLECTION = Collection(
    name="websites",
    table=lambda: settings().websites_table,
    orders={"domain": lambda record: record["domain"]},
    filters={"favorite": lambda record: "1" if record["favorite"] else "0"},
    listed=lambda record: answers(record, _now_iso()),
)

# A deleted website stops being counted everywhere within 60 s: 30 s for a cached lookup
# by host, 30 s for the aggregator's cached existence check.
CACHE_SECONDS = 30.0
# Unknown hosts are remembered briefly too, so a flood of hits costs few reads.
UNKNOWN_CACHE_SECONDS = 5.0
_MAX_CACHED = 10_000

_by_host: dict[str, tuple[float, Item | None]] = {}
_exists: dict[tuple[str, int], tuple[float, bool]] = {}


# The items holding an account's proof token for a site: `#proof:<account>:<site>`, id 0.
PROOF_PARTITION_PREFIX = "#proof:"
# A renamed website's old domain: `#renamed:<site>`, id 0, holding the website's `owner`
# and `record_id`, until when its hits count (`tracked_until`) and its share URLs redirect
# (`expires_at`, the table's TTL), Unix seconds.
RENAMED_PARTITION_PREFIX = "#renamed:"


class DomainTaken(Exception):
    """Another website holds the domain's claim."""


class ClaimChanged(Exception):
    """The claim or a website of a move changed since it was read; nothing was written."""


class Released(errors.Conflict):
    """409: a write to a website whose domain another account proved (read-only until its
    `released_at`, then gone)."""

    message = (
        "This website's domain moved to another account that proved it owns it: the website "
        "can be read until its released_at, not changed."
    )


def answers(record: Item, now_iso: str) -> bool:
    """Whether a stored website still answers at `now_iso`: a released one stops at its
    `released_at` (decided when read, so no job runs at the end of a grace period)."""
    return not record.get("released_at") or now_iso < str(record["released_at"])


def allocate_id() -> int:
    return records.allocate_id(COLLECTION)


def get(account: str, website_id: int) -> Item | None:
    """The account's website, or None; None too once a released website's `released_at`
    has passed."""
    record = records.get(COLLECTION, account, website_id)
    return record if record is None or answers(record, _now_iso()) else None


def get_as_stored(account: str, website_id: int) -> Item | None:
    """The account's website as stored, a released one too until the TTL removes it."""
    return records.get(COLLECTION, account, website_id)


def by_domain(site: str) -> Item | None:
    """The website whose domain has this site key, read now (not cached: a share view must
    see a privacy change at once)."""
    claim = records.get_claim(COLLECTION, site)
    if claim is None:
        return None
    return get(*holder(claim))


def of_account(account: str) -> list[Item]:
    """Every website of the account (`id`, `domain`, `privacy`, `email`, and the goals and
    saved funnels a digest shows), in id order; not the released ones, whose statistics
    are another account's now (no digest is sent for them)."""
    query: dict[str, Any] = {
        "TableName": settings().websites_table,
        "KeyConditionExpression": "account = :account",
        "ExpressionAttributeValues": {":account": {"S": account}},
        "ProjectionExpression": "id, #domain, privacy, email, goals, funnels, released_at",
        "ExpressionAttributeNames": {"#domain": "domain"},
    }
    found = (from_item(item) for item in every_item(query))
    kept = [
        {k: v for k, v in website.items() if k != "released_at"}
        for website in found
        if not website.get("released_at")
    ]
    return scopes.visible(COLLECTION.name, kept)


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
    `records.update`); the website written, or None when there is none (or no longer
    answers). Released (409) when its domain moved to another account."""

    try:
        record = records.update(COLLECTION, account, website_id, _unless_released(change))
    except _Gone:
        return None
    forget({"account": account, "id": website_id}, site)
    return record


def rename(
    account: str, website_id: int, change: records.Change, sites: tuple[str, str], note: Item
) -> Item | None:
    """`update` with a new domain: in the same transaction the old site's claim released,
    the new one's taken (DomainTaken when another website holds it) and the old site's
    rename `note` (`tracked_until`, `expires_at`) written."""
    old, new = sites

    def moves(current: Item, renamed: Item) -> tuple[Write, ...]:
        noted = {"owner": account, "record_id": website_id, **note}
        return (
            records.release_entry(COLLECTION, old, current),
            records.claim_entry(COLLECTION, new, renamed),
            {"Put": {"TableName": settings().websites_table,
                     "Item": {**_renamed_key(old), **to_item(noted)}}},
        )  # fmt: skip

    try:
        record = records.update(COLLECTION, account, website_id, _unless_released(change), moves)
    except _Gone:
        return None
    except transactions.ConditionFailed as failed:
        if 2 in failed.indexes:  # the new site's claim: another website holds it
            raise DomainTaken(new) from None
        raise ClaimChanged(old) from None  # the old claim moved away (a proof) meanwhile
    forget({"account": account, "id": website_id}, old)
    _by_host.pop(new, None)
    return record


def renamed_note(site: str) -> Item | None:
    """The note of a site a website was renamed from (`rename`, with `owner`, `record_id`)."""
    table = settings().websites_table
    answer = client("dynamodb").get_item(TableName=table, Key=_renamed_key(site))
    return from_item(answer["Item"]) if "Item" in answer else None


def _renamed_key(site: str) -> dict[str, Any]:
    return {"account": {"S": f"{RENAMED_PARTITION_PREFIX}{site}"}, "id": {"N": "0"}}


def delete_with_claim(account: str, website_id: int, site: str) -> Item | None:
    """Delete a website and its domain claim together; the website deleted, or None. A
    website whose domain moved to another account (`released_at`) is deleted alone: the
    claim, and the statistics of its id, are the other account's."""
    for _ in range(3):  # a move landing between the read and the delete: read again
        current = get(account, website_id)
        keeps_claim = current is not None and not current.get("released_at")
        try:
            deleted = records.delete(
                COLLECTION, account, website_id, claim=(lambda _: site) if keeps_claim else None
            )
            break
        except transactions.ConditionFailed:
            continue
    else:
        raise records.Busy()
    forget({"account": account, "id": website_id}, site)
    return deleted


# -- proofs of ownership and moves of a claim (sitelens.domains) -------------------------


def get_claim(site: str) -> Item | None:
    """The domain's claim as stored now: `owner`, `record_id`, and during a move's grace
    period `previous_owner`, `previous_record_id` and `moves_at`."""
    return records.get_claim(COLLECTION, site, consistent=True)


def holder(claim: Item) -> tuple[str, int]:
    """(account, website id) whose website counts the domain's hits and shows its share
    view: the claim's owner, from the moment of a proof (a move keeps the website id, so
    the hits count once, in the same statistics, whoever's record reads them)."""
    return claim["owner"], int(claim["record_id"])


def proof_token(account: str, site: str, new_token: str, now_iso: str) -> Item:
    """The account's token for proving it owns the site: the stored one, or `new_token`
    stored now (one write; asking again gives the same token)."""
    answer = client("dynamodb").update_item(
        TableName=settings().websites_table,
        Key=_proof_key(account, site),
        UpdateExpression="SET #token = if_not_exists(#token, :token), "
        "created_at = if_not_exists(created_at, :now)",
        ExpressionAttributeNames={"#token": "token"},
        ExpressionAttributeValues={":token": {"S": new_token}, ":now": {"S": now_iso}},
        ReturnValues="ALL_NEW",
    )
    return from_item(answer["Attributes"])


def stored_proof_token(account: str, site: str) -> str | None:
    answer = client("dynamodb").get_item(
        TableName=settings().websites_table, Key=_proof_key(account, site), ConsistentRead=True
    )
    return str(answer["Item"]["token"]["S"]) if "Item" in answer else None


def move_claim(
    site: str,
    claim_read: Item | None,
    new_claim: Item,
    created: Item | None,
    changed: tuple[tuple[Item | None, Item], ...],
) -> None:
    """Re-point the site's claim to `new_claim` (`owner`, `record_id`, and `previous_*`,
    `moves_at` during a grace period), creating the website `created` and writing each
    (current, new) website of `changed`, all or none, on the condition that the claim and
    each website are still as read; ClaimChanged when one is not."""
    writes: list[Write] = [_claim_put(site, claim_read, new_claim)]
    if created is not None:
        writes.append(_put(created, None))
    # (None, new) creates; over a released record of the same key (a domain proved back
    # after its grace period, before the TTL removed the old record) it is a write over it
    writes += [_put(new, current) for current, new in changed]
    try:
        transactions.write(writes)
    except transactions.ConditionFailed:
        raise ClaimChanged(site) from None
    except transactions.Contended:
        raise records.Busy() from None
    _by_host.pop(site, None)
    for website in (*(() if created is None else (created,)), *(new for _, new in changed)):
        _exists.pop((website["account"], int(website["id"])), None)


def versioned(current: Item | None, new: Item) -> Item:
    """`new` as the next version of `current` (the first when None)."""
    version = int(current.get("version", 0)) + 1 if current else 1
    return {**new, "version": version, "write_id": uuid.uuid4().hex}


def _put(record: Item, current: Item | None) -> Write:
    """A Put of the website `record`: new (nothing stored yet), or over `current` as read."""
    if current is None:
        condition, values = "attribute_not_exists(id)", {}
    elif "version" in current:
        condition, values = "version = :version", {":version": to_attr(current["version"])}
    else:  # a record from before versions
        condition, values = "attribute_exists(id) AND attribute_not_exists(version)", {}
    request: dict[str, Any] = {
        "TableName": settings().websites_table,
        "Item": to_item(COLLECTION.with_index_keys(record)),
        "ConditionExpression": condition,
    }
    if values:
        request["ExpressionAttributeValues"] = values
    return {"Put": request}


def _claim_put(site: str, claim_read: Item | None, new_claim: Item) -> Write:
    """The claim item written over the one read (or where there was none)."""
    request: dict[str, Any] = {
        "TableName": settings().websites_table,
        "Item": {**records.claim_key(site), **to_item(new_claim)},
    }
    if claim_read is None:
        request["ConditionExpression"] = "attribute_not_exists(id)"
    else:
        request["ConditionExpression"] = "#owner = :owner AND record_id = :id AND " + (
            "moves_at = :moves_at" if "moves_at" in claim_read else "attribute_not_exists(moves_at)"
        )
        request["ExpressionAttributeNames"] = {"#owner": "owner"}
        values = {":owner": claim_read["owner"], ":id": int(claim_read["record_id"])}
        if "moves_at" in claim_read:
            values[":moves_at"] = claim_read["moves_at"]
        request["ExpressionAttributeValues"] = to_item(values)
    return {"Put": request}


def _proof_key(account: str, site: str) -> dict[str, Any]:
    return {"account": {"S": f"{PROOF_PARTITION_PREFIX}{account}:{site}"}, "id": {"N": "0"}}


def _now_iso() -> str:
    return clock.now_iso()


class _Gone(Exception):
    """The website to change was released and its `released_at` has passed."""


def _unless_released(change: records.Change) -> records.Change:
    def changed(current: Item) -> Item:
        if current.get("released_at"):
            raise _Gone() if not answers(current, _now_iso()) else Released()
        return change(current)

    return changed


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
        if claim is None:  # a renamed website's old domain counts a while (`rename`)
            note = renamed_note(site)
            claim = note if note and time.time() < int(note["tracked_until"]) else None
        if claim is not None:
            website = records.stored(COLLECTION, *holder(claim))
        seconds = CACHE_SECONDS if website else UNKNOWN_CACHE_SECONDS
        _remember(_by_host, site, (now + seconds, website))
    if website is None or not answers(website, _now_iso()):
        return None
    return website if scope.admits(COLLECTION.name, website) else None


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
