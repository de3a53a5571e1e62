"""The visitors' daily salts: one random secret per calendar day, created by the first hit
of that day anywhere (a conditional put, so concurrent containers agree on one) and
destroyed by the table's TTL once no time zone is still in that day.

Items in the accounts table: `SALT#<YYYY-MM-DD>`/`SALT`, with `salt` (32 random bytes) and
`expires_at`. A day's date is current somewhere on Earth for about 50 hours (UTC+14 to
UTC-12); the item expires 14 hours after that, when DynamoDB removes it (TTL deletes
within a day or two of expiry; nothing reads a past day's salt in between).
"""

from __future__ import annotations

import secrets
from datetime import UTC, date, datetime, time, timedelta

from sitelens.config import settings
from sitelens.data.clients import client
from sitelens.data.items import is_condition_failure

_SALT_BYTES = 32
_KEPT_AFTER_LAST_ZONE = timedelta(hours=14)
_cache: dict[str, bytes] = {}


def _key(day: str) -> dict[str, dict[str, str]]:
    return {"pk": {"S": f"SALT#{day}"}, "sk": {"S": "SALT"}}


def for_day(day: date) -> bytes:
    """The salt of a calendar day, created if this is the day's first hit."""
    label = day.isoformat()
    cached = _cache.get(label)
    if cached is not None:
        return cached
    table = settings().accounts_table
    answer = client("dynamodb").get_item(TableName=table, Key=_key(label), ConsistentRead=True)
    if "Item" not in answer:
        # the last zone (UTC-12) leaves this day 36 hours after its UTC midnight
        ends = datetime.combine(day, time(), UTC) + timedelta(hours=36) + _KEPT_AFTER_LAST_ZONE
        fresh = secrets.token_bytes(_SALT_BYTES)
        try:
            client("dynamodb").put_item(
                TableName=table,
                Item={
                    **_key(label),
                    "salt": {"B": fresh},
                    "expires_at": {"N": str(int(ends.timestamp()))},
                },
                ConditionExpression="attribute_not_exists(pk)",
            )
            return _remember(label, fresh)
        except Exception as err:
            if not is_condition_failure(err):
                raise
        answer = client("dynamodb").get_item(TableName=table, Key=_key(label), ConsistentRead=True)
    return _remember(label, bytes(answer["Item"]["salt"]["B"]))


def _remember(label: str, salt: bytes) -> bytes:
    if len(_cache) > 4:  # only today's and yesterday's (per zone) are ever asked for
        _cache.clear()
    _cache[label] = salt
    return salt


def forget() -> None:
    """Forget this container's salts (tests)."""
    _cache.clear()
