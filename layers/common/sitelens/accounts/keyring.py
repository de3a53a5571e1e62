"""An account's API keys as the keys API manages them: created with scopes and an optional
expiry, listed, rotated with an overlap, revoked. A key is shown once, when it is made or
rotated; only its SHA-256 hash is stored. `grant_for_key` is what the edge's auth asks.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sitelens.accounts.keys import KEY_PREFIX, Account, get_account, key_hash, new_key
from sitelens.core import clock, errors, scopes
from sitelens.core.log import logger
from sitelens.data import accounts as stored_accounts
from sitelens.data import keys as stored_keys
from sitelens.data import members as stored_members
from sitelens.data.transactions import ConditionFailed
from sitelens.records import listing

if TYPE_CHECKING:
    from sitelens.accounts.inputs import KeyCreate, KeyRotate
    from sitelens.records.inputs import PageQuery

MAX_KEYS = 100  # an account's keys: one Query lists them all
PREFIX_LENGTH = len(KEY_PREFIX) + 8  # shown to tell keys apart; 35 characters stay secret
TOUCH_SECONDS = 60.0  # `last_used_at` is written at most this often per key and container
_MAX_TOUCHED = 10_000
_touched: dict[str, float] = {}
_touched_lock = threading.Lock()


@dataclass(frozen=True)
class Grant:
    """What a request's key grants: its account, its id and its scope."""

    account: Account
    key_id: str
    scope: scopes.Scope
    expires_at: float | None = None  # Unix seconds
    rate_limit: int | None = None  # requests a second of its own bucket, within its account's
    # whose key it is (keys made before members are the founder's) and that member's role
    member: str = stored_members.FOUNDER
    role: str = "owner"
    via: str | None = None  # the agency, when an agency key works in one of its workspaces

    def expired(self, now: float) -> bool:
        return self.expires_at is not None and now >= self.expires_at


def scope_of(stored: Any) -> scopes.Scope:
    """A stored scope (JSON; None for keys made before scopes: every right)."""
    if not stored:
        return scopes.EVERYTHING
    found = json.loads(stored)
    websites, projects = found.get("websites"), found.get("projects")
    return scopes.Scope(
        access=found.get("access", "read"),
        websites=None if websites is None else frozenset(int(w) for w in websites),
        projects=None if projects is None else frozenset(projects),
    )


def _scope_json(scope: scopes.Scope) -> str:
    return json.dumps(scope.public(), separators=(",", ":"))


def grant_for_key(key: str) -> Grant | None:
    """The grant of a key; None for an unknown, revoked or expired one."""
    found = stored_keys.lookup(key_hash(key))
    if found is None:
        return None
    expires_at = found.get("expires_at")
    if expires_at is not None and time.time() >= float(expires_at):
        return None  # expired; the table's TTL removes the lookup later
    account = get_account(str(found["account"]))
    if account is None:
        return None
    member = str(found.get("member") or stored_members.FOUNDER)
    role = role_of(account.id, member)
    if role is None:
        return None  # its member was removed (its keys are revoked with it)
    rate = found.get("rate_limit")
    scope = scope_of(found.get("scope"))
    rate_limit = int(rate) if rate else None
    return Grant(account, str(found["key_id"]), scope, expires_at, rate_limit, member, role)


def role_of(account_id: str, member_id: str) -> str | None:
    """A member's role; None for a removed or unknown member. An account that has not used
    the members API yet has only its founder, an owner."""
    found = stored_members.get(account_id, member_id)
    if found is None:
        return "owner" if member_id == stored_members.FOUNDER else None
    return None if found.get("removed_at") else str(found["role"])


def touch(grant: Grant, key: str) -> None:
    """Note that the key was used now, at most every TOUCH_SECONDS per container; never
    fails the request. (A key from before the keys API gets its entry then.)"""
    now = time.monotonic()
    with _touched_lock:
        if _touched.get(grant.key_id, -TOUCH_SECONDS) > now - TOUCH_SECONDS:
            return
        if len(_touched) >= _MAX_TOUCHED:
            _touched.clear()
        _touched[grant.key_id] = now
    try:
        adopted = {"prefix": key[:PREFIX_LENGTH], "scope": _scope_json(grant.scope)}
        adopted["hash"] = key_hash(key)
        stored_keys.touch(grant.account.id, grant.key_id, clock.now_iso(), adopted)
    except Exception:
        logger.exception("key use not noted", extra={"key_id": grant.key_id})


def _iso(seconds: Any) -> str | None:
    return None if seconds is None else clock.iso(datetime.fromtimestamp(float(seconds), UTC))


def show(entry: dict[str, Any]) -> dict[str, Any]:
    """A key as the keys API shows it: never the key, never its hash."""
    return {
        "id": int(entry["id"]),
        "name": entry["name"],
        "prefix": entry["prefix"],
        "scopes": scope_of(entry.get("scope")).public(),
        "member": int(entry.get("member") or stored_members.FOUNDER),
        "rate_limit": entry.get("rate_limit"),
        "created_at": entry["created_at"],
        "last_used_at": entry.get("last_used_at"),
        "expires_at": _iso(entry.get("expires_at")),
        "rotated_at": entry.get("rotated_at"),
        "previous_expires_at": _iso(entry.get("previous_expires_at")),
    }


def store(
    account_id: str,
    name: str,
    scope: scopes.Scope,
    expires_at: int | None,
    key: str | None = None,
    rate_limit: int | None = None,
    capped: bool = False,
    member: str | None = None,
) -> dict[str, Any]:
    """Store a new key of the account (of `member`; None: the founder's): the key as `show`
    has it, plus `key`, the secret, which is shown this once. `capped`: 422 when the account
    has MAX_KEYS keys."""
    key = key or new_key()
    key_id, details = _details(name, scope, expires_at, key, rate_limit, member)
    if not stored_keys.put(
        account_id, key_id, key_hash(key), details, MAX_KEYS if capped else None
    ):
        raise errors.Invalid.field("name", f"An account may have at most {MAX_KEYS} keys.")
    return {**show({**details, "id": key_id}), "key": key}


def _details(
    name: str,
    scope: scopes.Scope,
    expires_at: int | None,
    key: str,
    rate_limit: int | None,
    member: str | None,
) -> tuple[str, dict[str, Any]]:
    """A new key's id and what is stored of it."""
    details = {
        "name": name,
        "prefix": key[:PREFIX_LENGTH],
        "scope": _scope_json(scope),
        "created_at": clock.now_iso(),
        "expires_at": expires_at,
        "rate_limit": rate_limit,
        "member": member,
    }
    return str(stored_accounts.next_id("keys")), details


def first_key_writes(account_id: str, member: str, name: str) -> tuple[dict[str, Any], list[Any]]:
    """A new member's first key (every right its role has; shown once) and the writes that
    store it, for the transaction that makes the member."""
    key = new_key()
    key_id, details = _details(name, scopes.EVERYTHING, None, key, None, member)
    writes = stored_keys.put_writes(account_id, key_id, key_hash(key), details)
    return {**show({**details, "id": key_id}), "key": key}, writes


def create(account_id: str, fields: KeyCreate, member: str | None = None) -> dict[str, Any]:
    """A new key for the account, of `member` (the one whose key made it: a key never
    reaches beyond its member's role); a 422 names websites that are not its own, or too
    many keys."""
    check_websites(account_id, fields.websites)
    scope = scopes.Scope(
        access=fields.access,
        websites=frozenset(fields.websites) if fields.websites else None,
        projects=frozenset(fields.projects) if fields.projects else None,
    )
    return store(
        account_id,
        fields.name,
        scope,
        fields.expires_at,
        rate_limit=fields.rate_limit,
        capped=True,
        member=member,
    )


def check_websites(account_id: str, websites: list[int] | None) -> None:
    """422 on `websites` naming the ids that are not the account's websites (what a key or
    a webhook endpoint is limited to must be)."""
    if not websites:
        return
    from sitelens.data import websites as stored_websites

    missing = [w for w in websites if stored_websites.get(account_id, w) is None]
    if missing:
        named = ", ".join(str(w) for w in missing)
        raise errors.Invalid.field("websites", f"No website of this account has id {named}.")


def list_page(account_id: str, query: PageQuery) -> listing.Page:
    """One page of the account's keys by id (newest first unless `sort=asc`): read whole,
    one Query, as an account has at most MAX_KEYS."""
    return listing.id_page(
        [show(e) for e in stored_keys.of_account(account_id)], account_id, "keys", query
    )


def _entry(account_id: str, key_id: int) -> dict[str, Any]:
    entry = stored_keys.get(account_id, str(key_id))
    if entry is None:
        raise errors.NotFound()
    return entry


def get(account_id: str, key_id: int) -> dict[str, Any]:
    return show(_entry(account_id, key_id))


def revoke(account_id: str, key_id: int) -> None:
    """Revoke the account's key now (every container that cached it stops trusting it
    within `SITELENS_KEY_CACHE_SECONDS`); 404 when it has no such key."""
    if not stored_keys.revoke(str(key_id), clock.now_iso(), account_id):
        raise errors.NotFound()


def rotate(account_id: str, key_id: int, fields: KeyRotate) -> dict[str, Any]:
    """Give the key a new secret, shown this once; the old one keeps working for
    `fields.overlap` seconds (not past the key's own expiry). 409 when another rotation
    of the key came first."""
    entry = _entry(account_id, key_id)
    key = new_key()
    overlap_end = int(time.time()) + fields.overlap if fields.overlap else None
    if overlap_end is not None and entry.get("expires_at") is not None:
        overlap_end = min(overlap_end, int(entry["expires_at"]))
    change = {
        "prefix": key[:PREFIX_LENGTH],
        "rotated_at": clock.now_iso(),
        "previous_expires_at": overlap_end,
    }
    try:
        stored_keys.rotate(account_id, entry, key_hash(key), change)
    except ConditionFailed:
        raise errors.Conflict() from None
    return {**show({**entry, **change}), "key": key}


def add_key(account: Account, name: str, key: str | None = None) -> tuple[str, str]:
    """Store a key for the account with every right over it (the CLI's and `make serve`'s
    keys); returns (key id, the key, shown only now)."""
    created = store(account.id, name, scopes.EVERYTHING, None, key)
    return str(created["id"]), str(created["key"])


def list_keys() -> list[dict[str, Any]]:
    """Every key's id, name, account and dates (the CLI); never the key or its hash."""
    return sorted(stored_keys.listed(), key=lambda k: int(k["id"]))


def revoke_key(key_id: str) -> bool:
    """Revoke a key of any account (the CLI); False when unknown or revoked already."""
    return stored_keys.revoke(key_id, clock.now_iso())


def account_for_key(key: str) -> Account | None:
    """The account a key belongs to, or None for an unknown, revoked or expired key."""
    grant = grant_for_key(key)
    return None if grant is None else grant.account


def forget() -> None:
    """Forget when this container last noted each key's use (tests)."""
    with _touched_lock:
        _touched.clear()
