"""The accounts table: accounts, their API keys (as hashes) and id counters.

Items: `KEY#<hash>`/`KEY` (lookup by key), `KEYS`/`<key id>` (the listing, for the CLI),
`ACCOUNT#<id>`/`ACCOUNT` (the account) and `COUNTER`/`<name>` (id counters).
"""

from __future__ import annotations

from typing import Any

from sitelens.config import settings
from sitelens.data.clients import client
from sitelens.data.items import Item, from_item, to_item


def _table() -> str:
    return settings().accounts_table


def next_id(counter: str) -> int:
    """The next number of a counter (`accounts`, `keys`)."""
    answer = client("dynamodb").update_item(
        TableName=_table(),
        Key={"pk": {"S": "COUNTER"}, "sk": {"S": counter}},
        UpdateExpression="ADD last_id :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    return int(answer["Attributes"]["last_id"]["N"])


def put_account(account_id: str, name: str, created_at: str) -> None:
    client("dynamodb").put_item(
        TableName=_table(),
        Item=to_item(
            {"pk": f"ACCOUNT#{account_id}", "sk": "ACCOUNT", "name": name, "created_at": created_at}
        ),
        ConditionExpression="attribute_not_exists(pk)",
    )


def get_account(account_id: str) -> Item | None:
    """`{"name", "created_at"}` of an account, or None."""
    answer = client("dynamodb").get_item(
        TableName=_table(), Key={"pk": {"S": f"ACCOUNT#{account_id}"}, "sk": {"S": "ACCOUNT"}}
    )
    return from_item(answer["Item"]) if "Item" in answer else None


def put_key(account_id: str, key_id: str, key_hash: str, name: str, created_at: str) -> None:
    """Store a key's lookup item and its listing item together."""
    client("dynamodb").transact_write_items(
        TransactItems=[
            {
                "Put": {
                    "TableName": _table(),
                    "Item": to_item(
                        {
                            "pk": f"KEY#{key_hash}",
                            "sk": "KEY",
                            "account": account_id,
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
                            "hash": key_hash,
                            "name": name,
                            "account": account_id,
                            "created_at": created_at,
                            "revoked_at": None,
                        }
                    ),
                }
            },
        ]
    )


def list_keys() -> list[Item]:
    """Every key's listing item: `id`, `name`, `account`, `created_at`, `revoked_at`."""
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
                {
                    "id": item["sk"],
                    **{k: item.get(k) for k in ("name", "account", "created_at", "revoked_at")},
                }
            )
        if "LastEvaluatedKey" not in answer:
            return keys
        query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


def revoke_key(key_id: str, revoked_at: str) -> bool:
    """Remove the key's lookup item and mark its listing revoked; False if unknown."""
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
                    "ExpressionAttributeValues": {":now": {"S": revoked_at}},
                }
            },
        ]
    )
    return True


def account_of_key(key_hash: str) -> str | None:
    """The account id a key hash belongs to; None for an unknown or revoked key."""
    answer = client("dynamodb").get_item(
        TableName=_table(), Key={"pk": {"S": f"KEY#{key_hash}"}, "sk": {"S": "KEY"}}
    )
    return answer["Item"]["account"]["S"] if "Item" in answer else None
