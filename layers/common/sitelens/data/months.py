"""What the daily roll-up job keeps in the stats table, beside the counters (`data.stats`):

- month noted: `rollup#<YYYY-MM>`, `<website id>`, with the website's `account`; put by
  the aggregator when it counts a website's hits of that month (once per container), so
  the job Queries the websites of a month, never scans. Kept while late hits may come.
- the roll-up's state, on its `pageviews@month` counter (`stats.MONTH_TOTAL`): `count`,
  the month's pageviews; CHANGED, added to by every chunk of counters of the month
  committed after it closed; ROLLED, the CHANGED the roll-up read before it read the days
  (-1 while it is rewritten). The roll-up is whole when both are equal (absent: 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sitelens.core.config import settings
from sitelens.data import batches, stats
from sitelens.data.clients import client
from sitelens.data.items import is_condition_failure

_NOTED = "rollup#"
REWRITING = -1  # ROLLED while a roll-up's counters are being rewritten


def _table() -> str:
    return settings().stats_table


def note(months: Sequence[tuple[str, int, str]], expires_at: int) -> None:
    """Record that these (account, website id, month `YYYY-MM`) had hits counted."""
    stats.write_batch(
        [
            {
                "PutRequest": {
                    "Item": {
                        "series": {"S": f"{_NOTED}{month}"},
                        "slot": {"S": str(website_id)},
                        "account": {"S": account},
                        "expires_at": {"N": str(expires_at)},
                    }
                }
            }
            for account, website_id, month in months
        ]
    )


def noted(month: str, after: str | None, limit: int) -> tuple[list[tuple[str, int]], str | None]:
    """A page of at most `limit` (account, website id) with hits counted in `month`, and
    where the next page starts (None: no more)."""
    query: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "#series = :series",
        "ExpressionAttributeNames": {"#series": "series"},
        "ExpressionAttributeValues": {":series": {"S": f"{_NOTED}{month}"}},
        "Limit": limit,
    }
    if after is not None:
        query["ExclusiveStartKey"] = {"series": {"S": f"{_NOTED}{month}"}, "slot": {"S": after}}
    answer = client("dynamodb").query(**query)
    found = [(item["account"]["S"], int(item["slot"]["S"])) for item in answer["Items"]]
    last = answer.get("LastEvaluatedKey")
    return found, (last["slot"]["S"] if last else None)


@dataclass(frozen=True)
class State:
    """A month roll-up's state (see the module's docstring)."""

    count: int | None = None  # the month's pageviews; None: never rolled up
    changed: int = 0
    rolled: int | None = None

    @property
    def whole(self) -> bool:
        """Rolled up, and no chunk of the month's counters committed since."""
        return self.count is not None and self.changed == (self.rolled or 0)

    @property
    def done(self) -> bool:
        """Rolled up by the job (a roll-up of before has no ROLLED), and whole."""
        return self.rolled is not None and self.whole


def _state(item: dict[str, Any]) -> State:
    return State(
        int(item["count"]["N"]) if "count" in item else None,
        int(item.get(stats.CHANGED, {}).get("N", "0")),
        int(item[stats.ROLLED]["N"]) if stats.ROLLED in item else None,
    )


def _total_key(website_id: int, month: str) -> dict[str, Any]:
    return stats.counter_key(website_id, stats.MONTH_TOTAL, month, month)


def states(months: Sequence[tuple[int, str]]) -> dict[tuple[int, str], State]:
    """The state of each (website id, month) roll-up; strongly consistent reads
    (`batches.Unprocessed` when some could not be read)."""
    found = dict.fromkeys(months, State())
    by_series = {(f"{w}#{stats.MONTH_TOTAL}", stats.slot(m, m)): (w, m) for w, m in months}
    keys = [_total_key(w, m) for w, m in dict.fromkeys(months)]
    for item in batches.get(_table(), keys, consistent=True):
        found[by_series[(item["series"]["S"], item["slot"]["S"])]] = _state(item)
    return found


def span_states(website_id: int, first: str, last: str) -> tuple[dict[str, State], dict[str, int]]:
    """The state of each month roll-up from month `first` to `last` of a website (one
    Query), and what reading it cost."""
    answer = client("dynamodb").query(
        TableName=_table(),
        KeyConditionExpression="#series = :series AND #slot BETWEEN :first AND :last",
        ExpressionAttributeNames={"#series": "series", "#slot": "slot"},
        ExpressionAttributeValues={
            ":series": {"S": f"{website_id}#{stats.MONTH_TOTAL}"},
            ":first": {"S": f"{first}#"},
            ":last": {"S": f"{last}$"},
        },
    )
    found = {item["slot"]["S"][:7]: _state(item) for item in answer["Items"]}
    return found, {"requests": 1, "items_read": answer.get("ScannedCount", 0)}


def start_rewrite(website_id: int, month: str) -> None:
    """Mark the roll-up not whole while its counters are rewritten (readers read days)."""
    client("dynamodb").update_item(
        TableName=_table(),
        Key=_total_key(website_id, month),
        UpdateExpression="SET #rolled = :rewriting",
        ExpressionAttributeNames={"#rolled": stats.ROLLED},
        ExpressionAttributeValues={":rewriting": {"N": str(REWRITING)}},
    )


def replace(
    website_id: int,
    puts: Sequence[tuple[str, str, str, int]],
    deletes: Sequence[tuple[str, str, str]],
) -> None:
    """Put counters (name, month, value, count) whole and delete others (name, month,
    value) of a website's month roll-ups (`batches.Unprocessed` when some were not)."""
    stats.write_batch(
        [{"PutRequest": {"Item": stats.counter_item(website_id, *put)}} for put in puts]
        + [{"DeleteRequest": {"Key": stats.counter_key(website_id, *key)}} for key in deletes]
    )


def finish(website_id: int, month: str, pageviews: int, changed: int) -> bool:
    """Store the month's pageviews and mark the roll-up whole as of `changed`, unless a
    chunk of the month's counters committed since it was read; False then (the days read
    may lack it: the next run rolls the month up again)."""
    condition = "#changed = :changed"
    if changed == 0:
        condition = f"attribute_not_exists(#changed) OR {condition}"
    try:
        client("dynamodb").update_item(
            TableName=_table(),
            Key=_total_key(website_id, month),
            UpdateExpression="SET #count = :count, #rolled = :changed",
            ConditionExpression=condition,
            ExpressionAttributeNames={
                "#count": "count",
                "#rolled": stats.ROLLED,
                "#changed": stats.CHANGED,
            },
            ExpressionAttributeValues={
                ":count": {"N": str(pageviews)},
                ":changed": {"N": str(changed)},
            },
        )
    except Exception as err:
        if is_condition_failure(err):
            return False
        raise
    return True
