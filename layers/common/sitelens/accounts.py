"""Accounts and their API keys.

A key is shown once and stored only as its SHA-256 hash. The accounts table holds:
`KEY#<hash>`/`KEY` (lookup by key), `KEYS`/`<key id>` (the listing, for the CLI),
`ACCOUNT#<id>`/`ACCOUNT` (the account) and `COUNTER`/`<name>` (id counters).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from sitelens import clock
from sitelens.aws import client
from sitelens.config import settings
from sitelens.store import from_item, to_item

KEY_PREFIX = "sl_"


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    created_at: str

    def public(self) -> dict[str, Any]:
        return {"id": int(self.id), "name": self.name, "created_at": self.created_at}


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> str:
    """32 random bytes, URL-safe, with a prefix that secret scanners can recognise."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def _table() -> str:
    return settings().accounts_table


def _next(counter: str) -> int:
    answer = client("dynamodb").update_item(
        TableName=_table(),
        Key={"pk": {"S": "COUNTER"}, "sk": {"S": counter}},
        UpdateExpression="ADD last_id :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    return int(answer["Attributes"]["last_id"]["N"])


def create_account(name: str) -> Account:
    account = Account(id=str(_next("accounts")), name=name, created_at=clock.now_iso())
    client("dynamodb").put_item(
        TableName=_table(),
        Item=to_item(
            {
                "pk": f"ACCOUNT#{account.id}",
                "sk": "ACCOUNT",
                "name": account.name,
                "created_at": account.created_at,
            }
        ),
        ConditionExpression="attribute_not_exists(pk)",
    )
    return account


def get_account(account_id: str) -> Account | None:
    answer = client("dynamodb").get_item(
        TableName=_table(), Key={"pk": {"S": f"ACCOUNT#{account_id}"}, "sk": {"S": "ACCOUNT"}}
    )
    if "Item" not in answer:
        return None
    item = from_item(answer["Item"])
    return Account(id=account_id, name=item["name"], created_at=item["created_at"])


def add_key(account: Account, name: str, key: str | None = None) -> tuple[str, str]:
    """Store a key for the account; returns (key id, the key, shown only now)."""
    key = key or new_key()
    key_id = str(_next("keys"))
    hashed = key_hash(key)
    now = clock.now_iso()
    client("dynamodb").transact_write_items(
        TransactItems=[
            {
                "Put": {
                    "TableName": _table(),
                    "Item": to_item(
                        {
                            "pk": f"KEY#{hashed}",
                            "sk": "KEY",
                            "account": account.id,
                            "key_id": key_id,
                        }
                    ),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            {
                "Put": {
                    "TableName": _table(),
                    "Item": to_item(
                        {
                            "pk": "KEYS",
                            "sk": key_id,
                            "hash": hashed,
                            "name": name,
                            "account": account.id,
                            "created_at": now,
                            "revoked_at": None,
                        }
                    ),
                }
            },
        ]
    )
    return key_id, key


def list_keys() -> list[dict[str, Any]]:
    """Every key's id, name, account and dates; never the key or its hash."""
    query: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": "KEYS"}},
    }
    keys = []
    while True:
        answer = client("dynamodb").query(**query)
        for raw in answer["Items"]:
            item = from_item(raw)
            keys.append(
                {k: item.get(k) for k in ("sk", "name", "account", "created_at", "revoked_at")}
            )
        if "LastEvaluatedKey" not in answer:
            break
        query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
    for key in keys:
        key["id"] = key.pop("sk")
    return sorted(keys, key=lambda k: int(k["id"]))


def revoke_key(key_id: str) -> bool:
    """Remove the key's lookup item, so it no longer authenticates; False if unknown."""
    answer = client("dynamodb").get_item(
        TableName=_table(), Key={"pk": {"S": "KEYS"}, "sk": {"S": key_id}}
    )
    if "Item" not in answer:
        return False
    item = from_item(answer["Item"])
    client("dynamodb").transact_write_items(
        TransactItems=[
            {
                "Delete": {
                    "TableName": _table(),
                    "Key": {"pk": {"S": f"KEY#{item['hash']}"}, "sk": {"S": "KEY"}},
                }
            },
            {
                "Update": {
                    "TableName": _table(),
                    "Key": {"pk": {"S": "KEYS"}, "sk": {"S": key_id}},
                    "UpdateExpression": "SET revoked_at = :now",
                    "ExpressionAttributeValues": {":now": {"S": clock.now_iso()}},
                }
            },
        ]
    )
    return True


def account_for_key(key: str) -> Account | None:
    """The account a key belongs to, or None for an unknown or revoked key."""
    answer = client("dynamodb").get_item(
        TableName=_table(), Key={"pk": {"S": f"KEY#{key_hash(key)}"}, "sk": {"S": "KEY"}}
    )
    if "Item" not in answer:
        return None
    return get_account(answer["Item"]["account"]["S"])
