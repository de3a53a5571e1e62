"""The accounts table: accounts, their API keys (as hashes) and id counters.

Items: `KEY#<hash>`/`KEY` (lookup by key), `KEYS`/`<key id>` (the listing, for the CLI),
`ACCOUNT#<id>`/`ACCOUNT` (the account), `MAILED`/`<id>` (the accounts with an email
address, which the digests page through without a scan) and `COUNTER`/`<name>` (id
counters).
"""

from __future__ import annotations

from typing import Any

from sitelens.config import settings
from sitelens.data.clients import client
from sitelens.data.items import Item, error_code, from_item, to_item


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


def set_contact(account_id: str, email: str | None, digest: str) -> bool:
    """Set an account's email address (None: none) and digest cadence, and list or unlist
    it among the mailed accounts, together; False when there is no such account."""
    account_key = {"pk": {"S": f"ACCOUNT#{account_id}"}, "sk": {"S": "ACCOUNT"}}
    listing_key = {"pk": {"S": "MAILED"}, "sk": {"S": account_id}}
    if email:
        listing: dict[str, Any] = {
            "Put": {
                "TableName": _table(),
                "Item": {**listing_key, "email": {"S": email}, "digest": {"S": digest}},
            }
        }
    else:
        listing = {"Delete": {"TableName": _table(), "Key": listing_key}}
    try:
        client("dynamodb").transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": _table(),
                        "Key": account_key,
                        "UpdateExpression": "SET email = :email, digest = :digest",
                        "ConditionExpression": "attribute_exists(pk)",
                        "ExpressionAttributeValues": {
                            ":email": {"S": email} if email else {"NULL": True},
                            ":digest": {"S": digest},
                        },
                    }
                },
                listing,
            ]
        )
    except Exception as err:
        if error_code(err) == "TransactionCanceledException":
            return False
        raise
    return True


def mailed_accounts(after: str | None, limit: int) -> tuple[list[Item], str | None]:
    """A page of the accounts with an email address (`account`, `email`, `digest`), in id
    order as text, from after `after`; and where the next page starts (None at the end)."""
    query: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": "MAILED"}},
        "Limit": limit,
    }
    if after is not None:
        query["ExclusiveStartKey"] = {"pk": {"S": "MAILED"}, "sk": {"S": after}}
    answer = client("dynamodb").query(**query)
    found = [
        {"account": item["sk"]["S"], "email": item["email"]["S"], "digest": item["digest"]["S"]}
        for item in answer["Items"]
    ]
    following = answer.get("LastEvaluatedKey")
    return found, following["sk"]["S"] if following else None


def claim_digest(account_id: str, period: str, expires_at: int) -> bool:
    """Claim the sending of an account's digest of a period: True for the one caller that
    claimed it first, so a period's digest is sent at most once."""
    try:
        client("dynamodb").put_item(
            TableName=_table(),
            Item={
                "pk": {"S": f"DIGEST#{account_id}"},
                "sk": {"S": period},
                "state": {"S": "sending"},
                "expires_at": {"N": str(expires_at)},
            },
            ConditionExpression="attribute_not_exists(pk)",
        )
    except Exception as err:
        if error_code(err) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def record_digest(account_id: str, period: str, state: str, detail: str) -> None:
    """What became of a claimed digest: `sent` (with the message id), `failed` (with the
    reason) or `empty` (no website to report)."""
    client("dynamodb").update_item(
        TableName=_table(),
        Key={"pk": {"S": f"DIGEST#{account_id}"}, "sk": {"S": period}},
        UpdateExpression="SET #state = :state, detail = :detail",
        ExpressionAttributeNames={"#state": "state"},
        ExpressionAttributeValues={":state": {"S": state}, ":detail": {"S": detail[:1000]}},
    )


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
