"""What traffic alerts keep in the stats table, beside the counters (`data.stats`):

- activity: `active#<YYYY-MM-DD>` (UTC day the aggregator counted hits), `<website id>`,
  with the website's `account`; one item per website and day, so the hourly alert pass
  Queries the websites that had traffic today and yesterday, never scans. Kept 3 days.
- alert state: `alert#<website id>`, `traffic`; the website's open episode (`state`:
  normal, spike or drop), since when, its normal hours in a row (`calm`), and the last
  hour judged (`hour`), written on the
  condition that no later or equal hour was judged, so a pass run twice alerts once.
"""

from __future__ import annotations

from typing import Any

from sitelens.core.config import settings
from sitelens.data import batches, stats
from sitelens.data.clients import client
from sitelens.data.items import is_condition_failure

ACTIVITY_KEPT_SECONDS = 3 * 86_400
STATE_KEPT_SECONDS = 30 * 86_400  # refreshed each hour judged; gone 30 days after the last
HOURLY = "pageviews_hour"


def _table() -> str:
    return settings().stats_table


def note_active(day: str, websites: list[tuple[str, int]], expires_at: int) -> None:
    """Record that these (account, website id) had hits counted on `day` (UTC)."""
    requests = [
        {
            "PutRequest": {
                "Item": {
                    "series": {"S": f"active#{day}"},
                    "slot": {"S": str(website_id)},
                    "account": {"S": account},
                    "expires_at": {"N": str(expires_at)},
                }
            }
        }
        for account, website_id in websites
    ]
    stats.write_batch(requests)


def active(day: str, after: str | None, limit: int) -> tuple[list[tuple[str, int]], str | None]:
    """A page of at most `limit` (account, website id) with traffic on `day`, and where the
    next page starts (None: no more)."""
    query: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "#series = :series",
        "ExpressionAttributeNames": {"#series": "series"},
        "ExpressionAttributeValues": {":series": {"S": f"active#{day}"}},
        "Limit": limit,
    }
    if after is not None:
        query["ExclusiveStartKey"] = {"series": {"S": f"active#{day}"}, "slot": {"S": after}}
    answer = client("dynamodb").query(**query)
    found = [(item["account"]["S"], int(item["slot"]["S"])) for item in answer["Items"]]
    last = answer.get("LastEvaluatedKey")
    return found, (last["slot"]["S"] if last else None)


def hourly_pageviews(website_id: int, slots: list[tuple[str, str]]) -> list[int]:
    """The website's pageviews in each (day, hour `HH`) slot, 0 where none were counted;
    `batches.Unprocessed` when some could not be read."""
    series = f"{website_id}#{HOURLY}"
    keys = [{"series": {"S": series}, "slot": {"S": stats.slot(day, hour)}} for day, hour in slots]
    found = {item["slot"]["S"]: int(item["count"]["N"]) for item in batches.get(_table(), keys)}
    return [found.get(stats.slot(day, hour), 0) for day, hour in slots]


def alert_state(website_id: int) -> dict[str, str]:
    """The website's alert state: `state`, `since`, `hour`, `calm` (normal hours in a row
    during an episode); empty when none was kept."""
    answer = client("dynamodb").get_item(
        TableName=_table(),
        Key={"series": {"S": f"alert#{website_id}"}, "slot": {"S": "traffic"}},
        ConsistentRead=True,
    )
    item = answer.get("Item") or {}
    return {name: item[name]["S"] for name in ("state", "since", "hour", "calm") if name in item}


def judge_hour(website_id: int, state: dict[str, str], expires_at: int) -> bool:
    """Store the state of a newly judged hour; False when that hour or a later one was
    judged already (another pass got there first)."""
    try:
        client("dynamodb").put_item(
            TableName=_table(),
            Item={
                "series": {"S": f"alert#{website_id}"},
                "slot": {"S": "traffic"},
                **{name: {"S": value} for name, value in state.items()},
                "expires_at": {"N": str(expires_at)},
            },
            ConditionExpression="attribute_not_exists(#hour) OR #hour < :hour",
            ExpressionAttributeNames={"#hour": "hour"},
            ExpressionAttributeValues={":hour": {"S": state["hour"]}},
        )
    except Exception as err:
        if is_condition_failure(err):
            return False
        raise
    return True
