"""Requests counted per subject and time window, for rate limits: the password attempts on
a shared record per quarter of an hour; and failures counted per subject with a hold that
grows with them (a client's wrong passwords). An account's requests are a token bucket
(`data.buckets`).

One item per subject in the accounts table, `LIMIT#<subject>`/`LIMIT`, holds the current
window (`window`, a number that grows with time) and how many requests were counted in it
(`count`). An item per subject rather than one per window, so nothing piles up; items of
subjects that come and go (client addresses) expire by TTL (`expires_at`). Each request is
one conditional UpdateItem: `_add` while the stored window is the current one, `_start`
when it is an older one; which to try first is this container's guess (whether it counted
the subject in this window already), so a wrong guess costs a second request, and
concurrent containers never count past the limit between them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sitelens.core.config import settings
from sitelens.data.clients import client
from sitelens.data.items import error_code

_MAX_REMEMBERED = 10_000
# The last window this container counted each subject in.
_counted_in: dict[str, int] = {}
_NAMES = {"#window": "window", "#count": "count", "#expires": "expires_at"}


def take(subject: str, allowed: int, window: int, expires_at: int) -> bool:
    """Count one request of `subject` in `window`; False (and nothing counted) when it has
    made `allowed` requests in that window already. The item may go at `expires_at`."""
    start = _counted_in.get(subject) != window
    for _ in range(3):
        stored = _start(subject, window, expires_at) if start else _add(subject, window, allowed)
        if stored is None:
            _remember(subject, window)
            return True
        if stored < window:  # the stored window is over: start this one
            start = True
        elif start or stored > window:  # another request started it (or a clock is ahead)
            start, window = False, stored
        else:
            return False  # this window's requests are used up
    return True  # three races lost in a row: let the request through rather than refuse it


def give_back(subject: str, window: int) -> None:
    """Uncount one request `take` counted in `window` (nothing when that window is over)."""
    _update(
        subject,
        "ADD #count :minus_one",
        "#window = :window AND #count > :zero",
        {":window": {"N": str(window)}, ":minus_one": {"N": "-1"}, ":zero": {"N": "0"}},
    )


def held_for(subject: str, now: int, expires_at: int) -> int:
    """Seconds `subject` must still wait after its failures (`fail`); 0 when it may try.
    A new item may go at `expires_at`."""
    try:
        client("dynamodb").update_item(
            TableName=settings().accounts_table,
            Key=_key(subject),
            UpdateExpression="SET #expires = if_not_exists(#expires, :expires)",
            ConditionExpression="attribute_not_exists(#until) OR #until <= :now",
            ExpressionAttributeNames={"#expires": "expires_at", "#until": "held_until"},
            ExpressionAttributeValues={
                ":now": {"N": str(now)},
                ":expires": {"N": str(expires_at)},
            },
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    except Exception as err:
        if error_code(err) != "ConditionalCheckFailedException":
            raise
        stored = getattr(err, "response", {}).get("Item") or {}
        return max(int(stored.get("held_until", {}).get("N", now)) - now, 1)
    return 0


def fail(subject: str, hold: Callable[[int], int], now: int, expires_at: int) -> int:
    """Count a failure of `subject` and hold it for `hold(failures)` seconds from `now`;
    its failures are forgotten at `expires_at` (each failure moves it on). The count."""
    answer = client("dynamodb").update_item(
        TableName=settings().accounts_table,
        Key=_key(subject),
        UpdateExpression="ADD #failures :one SET #expires = :expires",
        ExpressionAttributeNames={"#failures": "failures", "#expires": "expires_at"},
        ExpressionAttributeValues={":one": {"N": "1"}, ":expires": {"N": str(expires_at)}},
        ReturnValues="UPDATED_NEW",
    )
    failures = int(answer["Attributes"]["failures"]["N"])
    if hold(failures) > 0:
        client("dynamodb").update_item(
            TableName=settings().accounts_table,
            Key=_key(subject),
            UpdateExpression="SET #until = :until",
            ExpressionAttributeNames={"#until": "held_until"},
            ExpressionAttributeValues={":until": {"N": str(now + hold(failures))}},
        )
    return failures


def succeed(subject: str) -> None:
    """Forget `subject`'s failures and hold."""
    try:
        client("dynamodb").update_item(
            TableName=settings().accounts_table,
            Key=_key(subject),
            UpdateExpression="REMOVE #failures, #until",
            ConditionExpression="attribute_exists(#failures)",
            ExpressionAttributeNames={"#failures": "failures", "#until": "held_until"},
        )
    except Exception as err:
        if error_code(err) != "ConditionalCheckFailedException":  # else none to forget
            raise


def _key(subject: str) -> dict[str, Any]:
    return {"pk": {"S": f"LIMIT#{subject}"}, "sk": {"S": "LIMIT"}}


def _start(subject: str, window: int, expires_at: int) -> int | None:
    return _update(
        subject,
        "SET #window = :window, #count = :one, #expires = :expires",
        "attribute_not_exists(#window) OR #window < :window",
        {
            ":window": {"N": str(window)},
            ":one": {"N": "1"},
            ":expires": {"N": str(expires_at)},
        },
    )


def _add(subject: str, window: int, allowed: int) -> int | None:
    return _update(
        subject,
        "ADD #count :one",
        "#window = :window AND #count < :limit",
        {":window": {"N": str(window)}, ":one": {"N": "1"}, ":limit": {"N": str(allowed)}},
    )


def _update(subject: str, update: str, condition: str, values: dict[str, Any]) -> int | None:
    """None when written; when the condition failed, the stored window (-1 for none)."""
    names = {name: attr for name, attr in _NAMES.items() if name in update or name in condition}
    try:
        client("dynamodb").update_item(
            TableName=settings().accounts_table,
            Key=_key(subject),
            UpdateExpression=update,
            ConditionExpression=condition,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    except Exception as err:
        if error_code(err) != "ConditionalCheckFailedException":
            raise
        stored = getattr(err, "response", {}).get("Item") or {}
        return int(stored["window"]["N"]) if "window" in stored else -1
    return None


def _remember(subject: str, window: int) -> None:
    if len(_counted_in) >= _MAX_REMEMBERED and subject not in _counted_in:
        _counted_in.clear()  # many subjects: start afresh, stay small
    _counted_in[subject] = window


def forget() -> None:
    """Forget this container's guesses (tests)."""
    _counted_in.clear()
