"""API keys in the accounts table, only ever as SHA-256 hashes.

Items of a key:
- `KEY#<hash>`/`KEY`: the lookup of a request's key (`account`, `key_id`, `scope` as JSON,
  `rate_limit` when it has one, `expires_at` in Unix seconds when it expires, which the
  table's TTL also removes it by);
  a rotated key has two for a while, its new secret's and its old one's;
- `KEYS#<account>`/`<key id>`: what the keys API shows (`name`, `prefix`, `scope`,
  `created_at`, `expires_at`, `last_used_at`, `rotated_at`) and the hashes of its lookups
  (`hash`, `previous_hash`), so one Query lists an account's keys;
- `KEYS`/`<key id>`: the listing of every key for the CLI (`account`, `hash`, `name`,
  `created_at`, `revoked_at`), kept when a key is revoked.

And `ADDS#KEYS#<account>`/`ADDS`, which makes an account's key creates one after the other
(`caps`), so that its MAX_KEYS holds when they come at once.
"""

from __future__ import annotations

from typing import Any

from sitelens.core.config import settings
from sitelens.data import caps, transactions
from sitelens.data.clients import client, every_item
from sitelens.data.items import Item, Write, error_code, from_item, to_item


def _table() -> str:
    return settings().accounts_table


def _lookup_key(key_hash: str) -> dict[str, Any]:
    return {"pk": {"S": f"KEY#{key_hash}"}, "sk": {"S": "KEY"}}


def _account_key(account_id: str, key_id: str) -> dict[str, Any]:
    return {"pk": {"S": f"KEYS#{account_id}"}, "sk": {"S": key_id}}


def _listing_key(key_id: str) -> dict[str, Any]:
    return {"pk": {"S": "KEYS"}, "sk": {"S": key_id}}


def _lookup_put(key_hash: str, account_id: str, key_id: str, details: Item) -> Write:
    found_by = {"account": account_id, "key_id": key_id, "scope": details["scope"]}
    for optional in ("expires_at", "rate_limit", "member"):
        if details.get(optional) is not None:
            found_by[optional] = details[optional]
    return {
        "Put": {
            "TableName": _table(),
            "Item": {**_lookup_key(key_hash), **to_item(found_by)},
            "ConditionExpression": "attribute_not_exists(pk)",
        }
    }


def put(
    account_id: str, key_id: str, key_hash: str, details: Item, limit: int | None = None
) -> bool:
    """Store a new key: its lookup, its entry among the account's keys and the CLI's
    listing, together. `details`: `name`, `prefix`, `scope`, `created_at`, `expires_at`
    (Unix seconds or None), `rate_limit` (requests a second, or None), `member` (None: the
    founder's). With `limit`, False when the account has that many keys already, however
    many adds come at once (`caps`)."""
    writes = put_writes(account_id, key_id, key_hash, details)
    if limit is None:
        transactions.write(writes)
        return True

    def count() -> int:
        return len(of_account(account_id, consistent=True))

    return caps.add_within(_table(), f"KEYS#{account_id}", writes, count, limit)


def put_writes(account_id: str, key_id: str, key_hash: str, details: Item) -> list[Write]:
    """The writes that store a new key (`put`'s), for a transaction of the caller's."""
    shown = {k: v for k, v in details.items() if v is not None}
    return [
        _lookup_put(key_hash, account_id, key_id, details),
        {
            "Put": {
                "TableName": _table(),
                "Item": {
                    **_account_key(account_id, key_id),
                    **to_item({**shown, "hash": key_hash}),
                },
            }
        },
        {
            "Put": {
                "TableName": _table(),
                "Item": {
                    **_listing_key(key_id),
                    **to_item(
                        {
                            "hash": key_hash,
                            "name": details["name"],
                            "account": account_id,
                            "created_at": details["created_at"],
                            "revoked_at": None,
                        }
                    ),
                },
            }
        },
    ]


def lookup(key_hash: str) -> Item | None:
    """`account`, `key_id`, `scope` (JSON or None for keys made before scopes) and
    `expires_at` of a key's hash; None for an unknown or revoked key."""
    answer = client("dynamodb").get_item(TableName=_table(), Key=_lookup_key(key_hash))
    return from_item(answer["Item"]) if "Item" in answer else None


def of_account(account_id: str, consistent: bool = False) -> list[Item]:
    """The account's keys as the keys API shows them (one Query: an account has at most
    `accounts.keyring.MAX_KEYS`), in no particular order; `consistent` for a create's count,
    which must include the last create."""
    query: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": f"KEYS#{account_id}"}},
        "ConsistentRead": consistent,
    }
    return [_entry(item) for item in every_item(query)]


def get(account_id: str, key_id: str) -> Item | None:
    """One of the account's keys, or None."""
    answer = client("dynamodb").get_item(
        TableName=_table(), Key=_account_key(account_id, key_id), ConsistentRead=True
    )
    return _entry(answer["Item"]) if "Item" in answer else None


def _entry(raw: dict[str, Any]) -> Item:
    item = from_item(raw)
    item["id"] = item.pop("sk")
    item.pop("pk", None)
    return item


def listed() -> list[Item]:
    """Every key's CLI listing: `id`, `name`, `account`, `created_at`, `revoked_at`."""
    query: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": "KEYS"}},
    }
    keys = []
    for raw in every_item(query):
        item = from_item(raw)
        keys.append(
            {
                "id": item["sk"],
                **{k: item.get(k) for k in ("name", "account", "created_at", "revoked_at")},
            }
        )
    return keys


def revoke(key_id: str, revoked_at: str, account_id: str | None = None) -> bool:
    """Delete every lookup of the key (its secret and, rotated, its old one) and its entry
    among its account's keys, and mark the CLI's listing revoked; False when there is no
    such key (of `account_id`, when given) or it was revoked already."""
    answer = client("dynamodb").get_item(
        TableName=_table(), Key=_listing_key(key_id), ConsistentRead=True
    )
    if "Item" not in answer:
        return False
    listing = from_item(answer["Item"])
    owner = str(listing["account"])
    if (account_id is not None and owner != account_id) or listing.get("revoked_at"):
        return False
    entry = get(owner, key_id) or {}
    hashes = {listing["hash"], entry.get("hash"), entry.get("previous_hash")} - {None}
    writes: list[Write] = [
        {"Delete": {"TableName": _table(), "Key": _lookup_key(str(h))}} for h in sorted(hashes)
    ]
    writes.append({"Delete": {"TableName": _table(), "Key": _account_key(owner, key_id)}})
    writes.append(
        {
            "Update": {
                "TableName": _table(),
                "Key": _listing_key(key_id),
                "UpdateExpression": "SET revoked_at = :now",
                "ExpressionAttributeValues": {":now": {"S": revoked_at}},
            }
        }
    )
    transactions.write(writes)
    return True


def rotate(account_id: str, current: Item, new_hash: str, change: Item) -> None:
    """Give the key `current` (its entry) a new secret: a lookup for `new_hash`; its old
    secret's lookup expires at `change["previous_expires_at"]` (deleted when that is None:
    no overlap); a lookup older still goes. `change`: `prefix`, `rotated_at`,
    `previous_expires_at`. ConditionFailed when the key changed in between."""
    key_id, old_hash = str(current["id"]), str(current["hash"])
    writes: list[Write] = [_lookup_put(new_hash, account_id, key_id, current)]
    overlap_end = change.get("previous_expires_at")
    if overlap_end is None:
        writes.append({"Delete": {"TableName": _table(), "Key": _lookup_key(old_hash)}})
    else:
        writes.append(
            {
                "Update": {
                    "TableName": _table(),
                    "Key": _lookup_key(old_hash),
                    "UpdateExpression": "SET expires_at = :end",
                    "ConditionExpression": "attribute_exists(pk)",
                    "ExpressionAttributeValues": {":end": {"N": str(overlap_end)}},
                }
            }
        )
    if current.get("previous_hash"):
        key = _lookup_key(str(current["previous_hash"]))
        writes.append({"Delete": {"TableName": _table(), "Key": key}})
    values = {":hash": new_hash, ":old": old_hash, **{f":{k}": v for k, v in change.items()}}
    writes.append(
        {
            "Update": {
                "TableName": _table(),
                "Key": _account_key(account_id, key_id),
                "UpdateExpression": (
                    "SET #hash = :hash, previous_hash = :old, prefix = :prefix, "
                    "rotated_at = :rotated_at, previous_expires_at = :previous_expires_at"
                ),
                "ConditionExpression": "#hash = :old",
                "ExpressionAttributeNames": {"#hash": "hash"},
                "ExpressionAttributeValues": to_item(values),
            }
        }
    )
    writes.append(
        {
            "Update": {
                "TableName": _table(),
                "Key": _listing_key(key_id),
                "UpdateExpression": "SET #hash = :hash",
                "ExpressionAttributeNames": {"#hash": "hash"},
                "ExpressionAttributeValues": {":hash": {"S": new_hash}},
            }
        }
    )
    transactions.write(writes)


def touch(account_id: str, key_id: str, used_at: str, adopted: Item) -> None:
    """Note when the key was last used, on its entry. A key made before the keys API has
    none: it gets one now, from the CLI's listing (its name and date) and `adopted` (its
    `prefix`, `scope`, `hash`), so the keys API lists it from its first use on."""
    try:
        client("dynamodb").update_item(
            TableName=_table(),
            Key=_account_key(account_id, key_id),
            UpdateExpression="SET last_used_at = :now",
            ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeValues={":now": {"S": used_at}},
        )
        return
    except Exception as err:
        if error_code(err) != "ConditionalCheckFailedException":
            raise
    answer = client("dynamodb").get_item(TableName=_table(), Key=_listing_key(key_id))
    listing = from_item(answer.get("Item") or {})
    if str(listing.get("account")) != account_id or listing.get("revoked_at"):
        return
    fields = {
        **adopted,
        "name": listing.get("name") or f"key {key_id}",
        "created_at": listing.get("created_at") or used_at,
        "last_used_at": used_at,
    }
    names = {f"#{n}": n for n in fields}
    try:
        client("dynamodb").update_item(  # an UpdateItem makes the entry, as keyed routes may
            TableName=_table(),
            Key=_account_key(account_id, key_id),
            UpdateExpression="SET " + ", ".join(f"#{n} = :{n}" for n in fields),
            ConditionExpression="attribute_not_exists(pk)",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=to_item({f":{n}": v for n, v in fields.items()}),
        )
    except Exception as err:
        if error_code(err) != "ConditionalCheckFailedException":
            raise
