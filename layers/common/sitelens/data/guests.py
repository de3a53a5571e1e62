"""Guest links of API keys (`sitelens.guests`) in the accounts table.

Items: `GUESTS#<account>#<key id>`/`<link id>`, with `kind` and `record_id` (what the link
opens first), `grant` (the random value its token must carry), `created_at` and `expires_at`
(Unix seconds, which the table's TTL removes it by too). One Query lists a key's links; a
share view reads one link by its key (a GetItem).
`ADDS#GUESTS#<account>#<key id>`/`ADDS` makes a key's adds one after the other (`caps`).
"""

from __future__ import annotations

from typing import Any

from sitelens.core.config import settings
from sitelens.data import caps
from sitelens.data.clients import client, every_item
from sitelens.data.items import Item, Write, error_code, from_item, to_item


def _table() -> str:
    return settings().accounts_table


def _key(account_id: str, key_id: str, link_id: str) -> dict[str, Any]:
    return {"pk": {"S": f"GUESTS#{account_id}#{key_id}"}, "sk": {"S": link_id}}


def add(account_id: str, key_id: str, link_id: str, details: Item, limit: int, now: float) -> bool:
    """Store a new link of the key (`details`: as the items above hold them); False
    when the key has `limit` links live at `now` already, however many adds come at once
    (`caps`)."""
    put: Write = {
        "Put": {
            "TableName": _table(),
            "Item": {**_key(account_id, key_id, link_id), **to_item(details)},
            "ConditionExpression": "attribute_not_exists(pk)",
        }
    }

    def live() -> int:
        links = of_key(account_id, key_id, consistent=True)
        return sum(1 for link in links if link["expires_at"] > now)

    return caps.add_within(_table(), f"GUESTS#{account_id}#{key_id}", [put], live, limit)


def get(account_id: str, key_id: str, link_id: str) -> Item | None:
    """One link of the key (strongly consistent: a deleted link is gone at once), or None."""
    answer = client("dynamodb").get_item(
        TableName=_table(), Key=_key(account_id, key_id, link_id), ConsistentRead=True
    )
    return _link(answer["Item"]) if "Item" in answer else None


def of_key(account_id: str, key_id: str, consistent: bool = False) -> list[Item]:
    """The key's links (expired ones the TTL has not removed yet included), in id order;
    `consistent` for an add's count, which must include the last add."""
    query: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": f"GUESTS#{account_id}#{key_id}"}},
        "ConsistentRead": consistent,
    }
    return [_link(item) for item in every_item(query)]


def delete(account_id: str, key_id: str, link_id: str) -> bool:
    """Delete one link of the key; False when there is none."""
    try:
        client("dynamodb").delete_item(
            TableName=_table(),
            Key=_key(account_id, key_id, link_id),
            ConditionExpression="attribute_exists(pk)",
        )
    except Exception as err:
        if error_code(err) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def _link(raw: dict[str, Any]) -> Item:
    item = from_item(raw)
    item["id"] = item.pop("sk")
    item["key_id"] = str(item.pop("pk")).rsplit("#", 1)[1]
    return item
