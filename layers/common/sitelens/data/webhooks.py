"""The webhooks table and queue: an account's endpoints, each endpoint's deliveries, and
the messages that send them.

Items: `ENDPOINT#<account>`/`<endpoint id>` (an endpoint, with its signing secrets: they
must be usable to sign, so they are stored as they are, encrypted at rest, and shown only
when made), `DELIVERY#<account>#<endpoint id>`/`<delivery id>` (one event's delivery to
one endpoint and its last attempt; the table's TTL removes it `expires_at`), and
`COUNTER`/`endpoints`, and `ADDS#ENDPOINT#<account>`/`ADDS`, the guard that makes an
account's creates one after the other (`caps`), so that two at once cannot both take the
last place. A queue message names a delivery and when it is due.
"""

from __future__ import annotations

import json
from typing import Any

from sitelens.core.config import settings
from sitelens.data import caps, transactions
from sitelens.data.clients import client, every_item
from sitelens.data.items import Item, Write, error_code, from_item, to_item

MAX_DELAY_SECONDS = 900  # SQS's longest delay: a later attempt waits in hops of it


def _table() -> str:
    return settings().webhooks_table


def _endpoint_key(account: str, endpoint_id: str) -> dict[str, Any]:
    return {"pk": {"S": f"ENDPOINT#{account}"}, "sk": {"S": endpoint_id}}


def _delivery_key(account: str, endpoint_id: str, delivery_id: str) -> dict[str, Any]:
    return {"pk": {"S": f"DELIVERY#{account}#{endpoint_id}"}, "sk": {"S": delivery_id}}


def next_endpoint_id() -> int:
    answer = client("dynamodb").update_item(
        TableName=_table(),
        Key={"pk": {"S": "COUNTER"}, "sk": {"S": "endpoints"}},
        UpdateExpression="ADD last_id :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    return int(answer["Attributes"]["last_id"]["N"])


def _stored(item: Item) -> dict[str, Any]:
    return to_item({k: v for k, v in item.items() if v is not None})


def _found(raw: dict[str, Any]) -> Item:
    item = from_item(raw)
    item.pop("pk", None)
    item["id"] = item.pop("sk")
    return item


def _endpoint_write(account: str, endpoint: Item, condition: str) -> Write:
    fields = {k: v for k, v in endpoint.items() if k != "id"}
    item = {**_endpoint_key(account, str(endpoint["id"])), **_stored(fields)}
    return {"Put": {"TableName": _table(), "Item": item, "ConditionExpression": condition}}


def add_endpoint(account: str, endpoint: Item, limit: int) -> bool:
    """Write a new endpoint (`id` among its fields, a new one); False when the account has
    `limit` endpoints already, however many creates come at once (`caps`)."""
    put = _endpoint_write(account, endpoint, "attribute_not_exists(pk)")
    owner = f"ENDPOINT#{account}"
    return caps.add_within(_table(), owner, [put], lambda: len(endpoints(account, True)), limit)


def put_endpoint(account: str, endpoint: Item) -> bool:
    """Write the endpoint whole (`id` among its fields) over the one there is; False when
    it is not there (any more)."""
    try:
        transactions.write([_endpoint_write(account, endpoint, "attribute_exists(pk)")])
    except transactions.ConditionFailed:
        return False
    return True


def get_endpoint(account: str, endpoint_id: str) -> Item | None:
    answer = client("dynamodb").get_item(
        TableName=_table(), Key=_endpoint_key(account, endpoint_id), ConsistentRead=True
    )
    return _found(answer["Item"]) if "Item" in answer else None


def endpoints(account: str, consistent: bool = False) -> list[Item]:
    """Every endpoint of the account (at most `webhooks.endpoints.MAX_ENDPOINTS`);
    `consistent` for a create's count, which must include the last create."""
    query: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": f"ENDPOINT#{account}"}},
        "ConsistentRead": consistent,
    }
    return [_found(item) for item in every_item(query)]


def delete_endpoint(account: str, endpoint_id: str) -> bool:
    """Delete the endpoint (its deliveries expire by TTL); False when there is none."""
    try:
        client("dynamodb").delete_item(
            TableName=_table(),
            Key=_endpoint_key(account, endpoint_id),
            ConditionExpression="attribute_exists(pk)",
        )
    except Exception as err:
        if error_code(err) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def put_delivery(account: str, endpoint_id: str, delivery: Item) -> None:
    """Write a delivery whole (`id` among its fields)."""
    fields = {k: v for k, v in delivery.items() if k != "id"}
    client("dynamodb").put_item(
        TableName=_table(),
        Item={**_delivery_key(account, endpoint_id, str(delivery["id"])), **_stored(fields)},
    )


def get_delivery(account: str, endpoint_id: str, delivery_id: str) -> Item | None:
    answer = client("dynamodb").get_item(
        TableName=_table(),
        Key=_delivery_key(account, endpoint_id, delivery_id),
        ConsistentRead=True,
    )
    return _found(answer["Item"]) if "Item" in answer else None


def deliveries(account: str, endpoint_id: str, limit: int) -> list[Item]:
    """The endpoint's latest `limit` deliveries, newest first (ids sort by time)."""
    answer = client("dynamodb").query(
        TableName=_table(),
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": f"DELIVERY#{account}#{endpoint_id}"}},
        ScanIndexForward=False,
        Limit=limit,
    )
    return [_found(item) for item in answer["Items"]]


def enqueue(message: Item, delay_seconds: int = 0) -> None:
    """Queue a delivery's next attempt, at most `MAX_DELAY_SECONDS` from now."""
    client("sqs").send_message(
        QueueUrl=settings().webhook_queue_url,
        MessageBody=json.dumps(message, separators=(",", ":")),
        DelaySeconds=max(0, min(int(delay_seconds), MAX_DELAY_SECONDS)),
    )
