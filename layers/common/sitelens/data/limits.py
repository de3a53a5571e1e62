"""Requests counted per account and second, for the per-account rate limit.

One item per account in the accounts table, `LIMIT#<account id>`/`LIMIT`, holds the
current second (`second`, Unix time) and how many requests were counted in it (`count`).
An item per account rather than one per second: the table has no TTL, and this way nothing
piles up. Each request is one conditional UpdateItem: `_add` while the stored second is the
current one, `_start` when it is an older one; which to try first is this container's
guess (whether it counted the account in this second already), so a wrong guess costs a
second request, and concurrent containers never count past the limit between them.
"""

from __future__ import annotations

from typing import Any

from sitelens.config import settings
from sitelens.data.clients import client
from sitelens.data.items import error_code

_MAX_REMEMBERED = 10_000
# The last second this container counted each account in.
_counted_in: dict[str, int] = {}
_NAMES = {"#second": "second", "#count": "count"}


def take(account_id: str, per_second: int, second: int) -> bool:
    """Count one request of the account in `second`; False (and nothing counted) when it
    has made `per_second` requests in that second already."""
    start = _counted_in.get(account_id) != second
    for _ in range(3):
        stored = _start(account_id, second) if start else _add(account_id, second, per_second)
        if stored is None:
            _remember(account_id, second)
            return True
        if stored < second:  # the stored second is over: start this one
            start = True
        elif start or stored > second:  # another request started it (or a clock is ahead)
            start, second = False, stored
        else:
            return False  # this second's requests are used up
    return True  # three races lost in a row: let the request through rather than refuse it


def _key(account_id: str) -> dict[str, Any]:
    return {"pk": {"S": f"LIMIT#{account_id}"}, "sk": {"S": "LIMIT"}}


def _start(account_id: str, second: int) -> int | None:
    return _update(
        account_id,
        "SET #second = :second, #count = :one",
        "attribute_not_exists(#second) OR #second < :second",
        {":second": {"N": str(second)}, ":one": {"N": "1"}},
    )


def _add(account_id: str, second: int, per_second: int) -> int | None:
    return _update(
        account_id,
        "ADD #count :one",
        "#second = :second AND #count < :limit",
        {":second": {"N": str(second)}, ":one": {"N": "1"}, ":limit": {"N": str(per_second)}},
    )


def _update(account_id: str, update: str, condition: str, values: dict[str, Any]) -> int | None:
    """None when written; when the condition failed, the stored second (-1 for none)."""
    try:
        client("dynamodb").update_item(
            TableName=settings().accounts_table,
            Key=_key(account_id),
            UpdateExpression=update,
            ConditionExpression=condition,
            ExpressionAttributeNames=_NAMES,
            ExpressionAttributeValues=values,
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    except Exception as err:
        if error_code(err) != "ConditionalCheckFailedException":
            raise
        stored = getattr(err, "response", {}).get("Item") or {}
        return int(stored["second"]["N"]) if "second" in stored else -1
    return None


def _remember(account_id: str, second: int) -> None:
    if len(_counted_in) >= _MAX_REMEMBERED and account_id not in _counted_in:
        _counted_in.clear()  # many accounts: start afresh, stay small
    _counted_in[account_id] = second


def forget() -> None:
    """Forget this container's guesses (tests)."""
    _counted_in.clear()
