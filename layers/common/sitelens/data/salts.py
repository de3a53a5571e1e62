"""The visitors' daily salts: one random secret per calendar day, created by the first hit
of that day anywhere (a conditional put, so concurrent containers agree on one) and
destroyed once no time zone is still in that day.

Items in the salts table, a table of their own (`SaltsTable`): `pk` `<YYYY-MM-DD>`, with
`salt` (32 random bytes) and `expires_at`. That table has no point-in-time recovery and no
backups, so a destroyed salt cannot be restored; the accounts table, which has them, never
holds one. A day's date is current somewhere on Earth from UTC+14's midnight to UTC-12's
next one; the item expires an hour after that, before the end of the next UTC day. TTL
deletes it, and the first hit of a later day deletes it too, so its end does not wait on
TTL's sweep; no container keeps it in memory past its expiry.
"""

from __future__ import annotations

import secrets
from datetime import UTC, date, datetime, timedelta

from sitelens.core import clock
from sitelens.core.config import settings
from sitelens.data.clients import client
from sitelens.data.items import is_condition_failure

_SALT_BYTES = 32
# the last zone (UTC-12) leaves a day 36 hours after its UTC midnight; an hour's margin
# for hits already on their way
_KEPT_AFTER_UTC_MIDNIGHT = timedelta(hours=37)
# a day this far back has expired (at the latest a day ago) when a new day's first hit comes
_DELETED_WITH_DAY_AFTER = timedelta(days=3)
_cache: dict[str, tuple[bytes, int]] = {}  # salt and expiry by day


def _key(day: date) -> dict[str, dict[str, str]]:
    return {"pk": {"S": day.isoformat()}}


def expires_at(day: date) -> int:
    """When a day's salt is destroyed (epoch seconds): an hour after the day is over in
    every time zone."""
    return int(
        (datetime.combine(day, datetime.min.time(), UTC) + _KEPT_AFTER_UTC_MIDNIGHT).timestamp()
    )


def for_day(day: date) -> bytes:
    """The salt of a calendar day, created if this is the day's first hit."""
    _forget_expired()
    cached = _cache.get(day.isoformat())
    if cached is not None:
        return cached[0]
    table = settings().salts_table
    answer = client("dynamodb").get_item(TableName=table, Key=_key(day), ConsistentRead=True)
    if "Item" not in answer:
        fresh = secrets.token_bytes(_SALT_BYTES)
        try:
            client("dynamodb").put_item(
                TableName=table,
                Item={
                    **_key(day),
                    "salt": {"B": fresh},
                    "expires_at": {"N": str(expires_at(day))},
                },
                ConditionExpression="attribute_not_exists(pk)",
            )
        except Exception as err:
            if not is_condition_failure(err):
                raise
        else:
            client("dynamodb").delete_item(TableName=table, Key=_key(day - _DELETED_WITH_DAY_AFTER))
            return _remember(day, fresh)
        answer = client("dynamodb").get_item(TableName=table, Key=_key(day), ConsistentRead=True)
    return _remember(day, bytes(answer["Item"]["salt"]["B"]))


def _remember(day: date, salt: bytes) -> bytes:
    if len(_cache) > 4:  # only today's and yesterday's (per zone) are ever asked for
        _cache.clear()
    _cache[day.isoformat()] = (salt, expires_at(day))
    return salt


def _forget_expired() -> None:
    now = clock.now().timestamp()
    for label, (_, ends) in list(_cache.items()):
        if ends <= now:
            _cache.pop(label, None)


def forget() -> None:
    """Forget this container's salts (tests)."""
    _cache.clear()
