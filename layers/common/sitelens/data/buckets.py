"""Token buckets shared by every container, reserved from in blocks: the account's rate
limit (`sitelens.accounts.limits` keeps the blocks in the container).

One item per subject and rate in the accounts table, `BUCKET#<subject>`/`RATE#<rate>`,
holds `due`: the moment by which every token reserved so far has been earned back (the
GCRA's theoretical arrival time), in units of 1/rate microseconds, so that a token is
exactly `MICROS` units and no rounding creeps in (a new rate starts a new bucket). At
`now` the bucket holds `(now + burst tokens - due)` tokens, all `burst` once `due` has
passed. Reserving `n` tokens is one conditional UpdateItem and no read: `_extend` adds
them to a `due` still to come, on the condition that the bucket holds them; `_restart`
sets `due` afresh when it has passed (or there is no item). A failed condition returns
the stored `due`, from which the next try is chosen (fewer tokens, the other update), so
concurrent containers never reserve more than the bucket holds between them. Items of
idle subjects expire by TTL (`expires_at`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sitelens.core.config import settings
from sitelens.data.clients import client
from sitelens.data.items import error_code

MICROS = 1_000_000
_ATTEMPTS = 10  # each failed one means another container reserved: the bucket drains
_EXPIRES_AFTER_SECONDS = 60  # past a full bucket: an idle subject's item goes
_NAMES = {"#due": "due", "#expires": "expires_at"}
# The last `due` this container saw for each subject (which update to try first).
_seen: dict[str, int] = {}
_MAX_REMEMBERED = 10_000


@dataclass(frozen=True)
class Reservation:
    """`granted` tokens (0: the bucket is empty), and the bucket's `due` after it (units)."""

    granted: int
    due: int


def units(now: float, rate: int) -> int:
    """`now` (Unix seconds) in the buckets' units for `rate`."""
    return int(now * MICROS) * rate


def seconds(due: int, rate: int) -> float:
    """A `due` in Unix seconds."""
    return due / (MICROS * rate)


def held(due: int, burst: int, at: int) -> int:
    """The tokens a bucket of `burst` with this `due` holds at `at` (units)."""
    return max(0, min(burst, (at + burst * MICROS - due) // MICROS))


def retry_after(due: int, burst: int, rate: int, now: float) -> int:
    """Whole seconds, at least 1, from `now` until an empty bucket holds a token again."""
    # the next token comes when `due` is within the burst of now again
    wait = seconds(due - (burst - 1) * MICROS, rate) - now
    return max(1, math.ceil(wait))


def reserve(subject: str, wanted: int, rate: int, burst: int, now: float) -> Reservation:
    """Take up to `wanted` tokens from the subject's bucket (`rate` a second, `burst` at
    most) at `now` (Unix seconds): fewer when it holds fewer, none when it is empty."""
    key = _key(subject, rate)
    at = units(now, rate)
    full_at = at + burst * MICROS
    expires = int(now) + burst // rate + _EXPIRES_AFTER_SECONDS
    restart = _seen.get(key["pk"]["S"] + key["sk"]["S"], -1) < at
    tokens = wanted
    stored = at
    for _ in range(_ATTEMPTS):
        spent = tokens * MICROS
        if restart:
            written, stored = _restart(key, at, spent, expires)
        else:
            written, stored = _extend(key, at, spent, full_at, expires)
        _remember(key, stored)
        if written:
            return Reservation(tokens, stored)
        if stored < at:  # the stored bucket is full again (or there is none): start afresh
            restart = True
            continue
        restart = False
        tokens = min(tokens, held(stored, burst, at))
        if tokens < 1:
            return Reservation(0, stored)
    # lost every race to other containers: refuse rather than reserve past the bucket
    return Reservation(0, max(stored, at))


def _key(subject: str, rate: int) -> dict[str, Any]:
    return {"pk": {"S": f"BUCKET#{subject}"}, "sk": {"S": f"RATE#{rate}"}}


def _restart(key: dict[str, Any], at: int, spent: int, expires: int) -> tuple[bool, int]:
    return _update(
        key,
        "SET #due = :due, #expires = :expires",
        "attribute_not_exists(#due) OR #due < :now",
        {
            ":due": {"N": str(at + spent)},
            ":now": {"N": str(at)},
            ":expires": {"N": str(expires)},
        },
    )


def _extend(
    key: dict[str, Any], at: int, spent: int, full_at: int, expires: int
) -> tuple[bool, int]:
    # the tokens are there while `due + spent <= now + burst`
    return _update(
        key,
        "SET #expires = :expires ADD #due :spent",
        "#due >= :now AND #due <= :ceiling",
        {
            ":spent": {"N": str(spent)},
            ":now": {"N": str(at)},
            ":ceiling": {"N": str(full_at - spent)},
            ":expires": {"N": str(expires)},
        },
    )


def _update(
    key: dict[str, Any], update: str, condition: str, values: dict[str, Any]
) -> tuple[bool, int]:
    """(True, the new `due`) when written; (False, the stored `due`, -1 for none) when the
    condition failed."""
    try:
        answer = client("dynamodb").update_item(
            TableName=settings().accounts_table,
            Key=key,
            UpdateExpression=update,
            ConditionExpression=condition,
            ExpressionAttributeNames=_NAMES,
            ExpressionAttributeValues=values,
            ReturnValues="UPDATED_NEW",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    except Exception as err:
        if error_code(err) != "ConditionalCheckFailedException":
            raise
        stored = getattr(err, "response", {}).get("Item") or {}
        return False, int(stored["due"]["N"]) if "due" in stored else -1
    return True, int(answer["Attributes"]["due"]["N"])


def _remember(key: dict[str, Any], due: int) -> None:
    name = key["pk"]["S"] + key["sk"]["S"]
    if len(_seen) >= _MAX_REMEMBERED and name not in _seen:
        _seen.clear()  # many subjects: start afresh, stay small
    _seen[name] = due


def forget() -> None:
    """Forget this container's view of the buckets (tests)."""
    _seen.clear()
