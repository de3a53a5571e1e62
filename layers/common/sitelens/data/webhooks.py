"""The webhooks table and queue: an account's endpoints, each endpoint's deliveries, and
the messages that send them.

Items: `ENDPOINT#<account>`/`<endpoint id>` (an endpoint, with its signing secrets: they
must be usable to sign, so they are stored as they are, encrypted at rest, and shown only
when made), `DELIVERY#<account>#<endpoint id>`/`<delivery id>` (one event's delivery to
one endpoint and its last attempt; the table's TTL removes it `expires_at`), and
`COUNTER`/`endpoints`, and `ADDS#ENDPOINT#<account>`/`ADDS`, the guard that makes an
account's creates one after the other (`caps`), so that two at once cannot both take the
last place. A queue message names a delivery and when it is due.

Each endpoint's deliveries go out one at a time, in order (`webhooks.deliveries`), by two
more items: `OPEN#<account>#<endpoint id>`/`<delivery id>`, one for each delivery not yet
succeeded or failed, written and deleted in the same transaction as the delivery's state
(the oldest is the one to send next), and `LANE#<account>`/`<endpoint id>`, the lease an
attempt holds while it sends (`holder`, until `lease_until`).
"""

from __future__ import annotations

import json
from typing import Any

from sitelens.core.config import settings
from sitelens.data import caps, transactions
from sitelens.data.clients import client, every_item
from sitelens.data.items import Item, Write, error_code, from_item, to_attr, to_item

MAX_DELAY_SECONDS = 900  # SQS's longest delay: a later attempt waits in hops of it


def _table() -> str:
    return settings().webhooks_table


def _endpoint_key(account: str, endpoint_id: str) -> dict[str, Any]:
    return {"pk": {"S": f"ENDPOINT#{account}"}, "sk": {"S": endpoint_id}}


def _delivery_key(account: str, endpoint_id: str, delivery_id: str) -> dict[str, Any]:
    return {"pk": {"S": f"DELIVERY#{account}#{endpoint_id}"}, "sk": {"S": delivery_id}}


def _open_key(account: str, endpoint_id: str, delivery_id: str) -> dict[str, Any]:
    return {"pk": {"S": f"OPEN#{account}#{endpoint_id}"}, "sk": {"S": delivery_id}}


def _lane_key(account: str, endpoint_id: str) -> dict[str, Any]:
    return {"pk": {"S": f"LANE#{account}"}, "sk": {"S": endpoint_id}}


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


def _update(key: dict[str, Any], update: str, condition: str, values: Item) -> Item | None:
    """One conditional UpdateItem; the item as it is after, or None when the condition
    failed (nothing was written)."""
    request: dict[str, Any] = {
        "TableName": _table(),
        "Key": key,
        "UpdateExpression": update,
        "ConditionExpression": condition,
        "ReturnValues": "ALL_NEW",
    }
    if "#state" in update + condition:  # a reserved word
        request["ExpressionAttributeNames"] = {"#state": "state"}
    if values:  # DynamoDB refuses an empty map
        request["ExpressionAttributeValues"] = to_item(values)
    try:
        answer = client("dynamodb").update_item(**request)
    except Exception as err:
        if error_code(err) == "ConditionalCheckFailedException":
            return None
        raise
    return _found(answer["Attributes"])


# A delivery writes only these fields of its endpoint, each under its own condition, never
# the whole item: what the user changed during an attempt (secret, URL, events, pause) stays.


def mark_failing(account: str, endpoint_id: str, since: str) -> None:
    """Record that deliveries fail since `since`, unless they already did."""
    _update(
        _endpoint_key(account, endpoint_id),
        "SET failing_since = :since",
        "attribute_exists(pk) AND attribute_not_exists(failing_since)",
        {":since": since},
    )


def clear_failing(account: str, endpoint_id: str) -> None:
    """A delivery reached the endpoint: it no longer fails."""
    _update(
        _endpoint_key(account, endpoint_id),
        "REMOVE failing_since",
        "attribute_exists(pk) AND attribute_exists(failing_since)",
        {},
    )


def disable_failing(
    account: str, endpoint_id: str, since: str, reason: str, now: str
) -> Item | None:
    """Disable an endpoint that is enabled and that nothing reached since `since` (checked
    as it is written); the endpoint after, or None when that no longer holds."""
    return _update(
        _endpoint_key(account, endpoint_id),
        "SET enabled = :false, disabled_reason = :reason, updated_at = :now",
        "enabled = :true AND (attribute_not_exists(failing_since) OR failing_since <= :since)",
        {":false": False, ":true": True, ":reason": reason, ":now": now, ":since": since},
    )


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


def _delivery_put(account: str, endpoint_id: str, delivery: Item) -> Write:
    fields = {k: v for k, v in delivery.items() if k != "id"}
    item = {**_delivery_key(account, endpoint_id, str(delivery["id"])), **_stored(fields)}
    return {"Put": {"TableName": _table(), "Item": item}}


def _opened(account: str, endpoint_id: str, delivery_id: str, expires_at: int) -> Write:
    """The delivery's place in its endpoint's line, as a new delivery's Put."""
    item = {**_open_key(account, endpoint_id, delivery_id), "expires_at": to_attr(expires_at)}
    return {"Put": {"TableName": _table(), "Item": item}}


def _reopened(account: str, endpoint_id: str, delivery_id: str, expires_at: int) -> Write:
    """The same place for a delivery sent again, as an Update (it makes the item too): the
    redeliver function updates deliveries and never puts one."""
    return {
        "Update": {
            "TableName": _table(),
            "Key": _open_key(account, endpoint_id, delivery_id),
            "UpdateExpression": "SET expires_at = :expires",
            "ExpressionAttributeValues": {":expires": to_attr(expires_at)},
        }
    }


def _closed(account: str, endpoint_id: str, delivery_id: str) -> Write:
    return {"Delete": {"TableName": _table(), "Key": _open_key(account, endpoint_id, delivery_id)}}


def add_delivery(account: str, endpoint_id: str, delivery: Item) -> None:
    """Write a new delivery (`id` among its fields) and its place in the endpoint's line,
    both or neither."""
    transactions.write(
        [
            _delivery_put(account, endpoint_id, delivery),
            _opened(account, endpoint_id, str(delivery["id"]), int(delivery["expires_at"])),
        ]
    )


def put_delivery(account: str, endpoint_id: str, delivery: Item) -> None:
    """Write a delivery whole (`id` among its fields) that stays in its line."""
    transactions.write([_delivery_put(account, endpoint_id, delivery)])


def finish_delivery(account: str, endpoint_id: str, delivery: Item) -> None:
    """Write a delivery that succeeded or failed whole, and take it out of its line."""
    transactions.write(
        [
            _delivery_put(account, endpoint_id, delivery),
            _closed(account, endpoint_id, str(delivery["id"])),
        ]
    )


def close_stale(account: str, endpoint_id: str, delivery_id: str) -> None:
    """Take out of the line a delivery that is gone (expired) or already finished."""
    transactions.write([_closed(account, endpoint_id, delivery_id)])


def first_open(account: str, endpoint_id: str) -> str | None:
    """The id of the endpoint's oldest delivery not yet finished (ids sort by time)."""
    answer = client("dynamodb").query(
        TableName=_table(),
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": f"OPEN#{account}#{endpoint_id}"}},
        ConsistentRead=True,
        Limit=1,
    )
    items = answer.get("Items") or []
    return str(items[0]["sk"]["S"]) if items else None


def take_lane(account: str, endpoint_id: str, holder: str, until: float, now: float) -> bool:
    """Hold the endpoint's lease until `until` (Unix seconds) unless another holder's lasts
    beyond `now`; whether it is held."""
    taken = _update(
        _lane_key(account, endpoint_id),
        "SET holder = :holder, lease_until = :until, expires_at = :expires",
        "attribute_not_exists(holder) OR lease_until < :now OR holder = :holder",
        {":holder": holder, ":until": until, ":now": now, ":expires": int(until) + 86_400},
    )
    return taken is not None


def free_lane(account: str, endpoint_id: str, holder: str) -> None:
    """Give the lease up, if `holder` still holds it."""
    _update(
        _lane_key(account, endpoint_id),
        "REMOVE holder, lease_until",
        "holder = :holder",
        {":holder": holder},
    )


def restart_delivery(
    account: str, endpoint_id: str, delivery_id: str, now: str, expires_at: int
) -> Item | None:
    """Make a delivery that succeeded or failed pending again with no attempts, back in its
    endpoint's line; None when it is pending or retrying (its chain of attempts goes on: no
    second one) or gone."""
    restart: Write = {
        "Update": {
            "TableName": _table(),
            "Key": _delivery_key(account, endpoint_id, delivery_id),
            "UpdateExpression": (
                "SET #state = :pending, attempts = :zero, updated_at = :now "
                "REMOVE next_attempt_at, due_at"
            ),
            "ConditionExpression": "attribute_exists(pk) AND #state IN (:succeeded, :failed)",
            "ExpressionAttributeNames": {"#state": "state"},
            "ExpressionAttributeValues": to_item(
                {
                    ":pending": "pending",
                    ":zero": 0,
                    ":now": now,
                    ":succeeded": "succeeded",
                    ":failed": "failed",
                }
            ),
        }
    }
    try:
        transactions.write([restart, _reopened(account, endpoint_id, delivery_id, expires_at)])
    except transactions.ConditionFailed:
        return None
    return get_delivery(account, endpoint_id, delivery_id)


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
