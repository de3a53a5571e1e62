"""A cap on how many items an owner has (an account's keys and webhook endpoints, a key's
guest links) that holds when adds come at once.

Counting an owner's items and then writing one lets two adds both take the last place.
Here each add of an owner also bumps the owner's guard item (`ADDS#<owner>`/`ADDS`,
attribute `adds`) in its transaction, on the condition that no other add did since the
count was read; one that lost reads and counts again, for up to `ADD_SECONDS`, then is a
409 (`records.Busy`). Adds of one owner are thus made one after the other, as if serial.
Removals need not take part: they only free places.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sitelens.data import transactions
from sitelens.data.clients import client
from sitelens.data.items import Write
from sitelens.data.records import Busy

ADD_SECONDS = 5.0  # an owner's adds at once each win in milliseconds; far below the API's 25 s
# A lost add was beaten by one that has committed: nothing to wait out but the next racers.
RETRY_CAP_SECONDS = 0.05


def _guard_key(owner: str) -> dict[str, Any]:
    return {"pk": {"S": f"ADDS#{owner}"}, "sk": {"S": "ADDS"}}


def add_within(
    table: str, owner: str, writes: Sequence[Write], count: Callable[[], int], limit: int
) -> bool:
    """Apply `writes` all or none unless `count()`, the owner's items as a consistent read
    finds them, is `limit` already: False then. ConditionFailed for the writes' own
    conditions (the indexes of `writes`); Busy when other adds kept coming first."""
    for _ in transactions.attempts(seconds=ADD_SECONDS, cap=RETRY_CAP_SECONDS):
        answer = client("dynamodb").get_item(
            TableName=table, Key=_guard_key(owner), ConsistentRead=True
        )
        seen = (answer.get("Item") or {}).get("adds")
        if count() >= limit:
            return False
        guard: Write = {
            "Update": {
                "TableName": table,
                "Key": _guard_key(owner),
                "UpdateExpression": "ADD adds :one",
                "ConditionExpression": "adds = :seen" if seen else "attribute_not_exists(adds)",
                "ExpressionAttributeValues": {
                    ":one": {"N": "1"},
                    **({":seen": seen} if seen else {}),
                },
            }
        }
        try:
            transactions.write([*writes, guard])
            return True
        except transactions.ConditionFailed as failed:
            if len(writes) not in failed.indexes:
                raise
            # another add of this owner came first: count again
    raise Busy()
