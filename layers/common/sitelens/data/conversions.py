"""Goal conversions counted per website and minute for `goal.converted` webhooks, in the
webhooks table (`sitelens.analytics.converted` writes them, `sitelens.webhooks.goals`
sends them).

Items, each removed by the table's TTL:
- `CONVERTED#<account>#<hit id>`/`hit`: the hit's conversions were counted (kept as long
  as counting's records, `queues.HIT_RECORDS_KEPT_SECONDS`: beyond the longest path a hit
  can take, a redrive included), so a hit delivered or redriven again adds nothing;
- `CONVERSIONS#<account>#<website id>`/`<minute>` (`YYYY-MM-DDTHH:MM`, UTC): per goal `c_<id>`
  its conversions, `r_<id>` its revenue in `cur_<id>`, `n_<id>` its name; `sent_at` once
  its delivery was queued (7 days);
- `CONVERSIONS@<minute>`/`<account>#<website id>`: which websites converted in a minute,
  one Query for the sender (7 days).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sitelens.core.config import settings
from sitelens.data import queues, transactions
from sitelens.data.clients import client, every_item
from sitelens.data.items import Write, error_code, from_attr

# a hit's marker outlives every delivery of it that is counted (older hits are parked)
MARKER_KEPT_SECONDS = queues.HIT_RECORDS_KEPT_SECONDS
MINUTE_KEPT_SECONDS = 7 * 86_400


class MinuteSent(Exception):
    """The minute's conversions were sent already: count these in a later minute."""


def _table() -> str:
    return settings().webhooks_table


def _counter_key(account: str, website_id: int, minute: str) -> dict[str, Any]:
    return {"pk": {"S": f"CONVERSIONS#{account}#{website_id}"}, "sk": {"S": minute}}


# A transaction holds 100 items: each hit's marker, the minute's counters and its index entry
CHUNK_HITS = 98

Conversion = tuple[int, str, str | None, Decimal | None]  # goal id, name, currency, revenue


class Counted(Exception):
    """Some of the hits were counted before (nothing was written): count the others."""

    def __init__(self, hit_ids: set[str]) -> None:
        super().__init__(f"{len(hit_ids)} hits counted before")
        self.hit_ids = hit_ids


def add(
    account: str,
    website_id: int,
    minute: str,
    hits: list[tuple[str, list[Conversion]]],
    now: int,
) -> None:
    """Count these hits' conversions (each hit's id and goals) in the website's `minute` in
    one transaction, each hit once (at most CHUNK_HITS of them): Counted, naming the hits
    counted before, or MinuteSent when that minute was sent already; then nothing is
    written."""
    count: dict[int, int] = {}
    revenue: dict[int, Decimal] = {}
    names: dict[str, str] = {}
    values: dict[str, Any] = {":expires": {"N": str(now + MINUTE_KEPT_SECONDS)}}
    sets = ["expires_at = :expires"]
    for _, goals in hits:
        for goal_id, name, currency, amount in goals:
            if goal_id not in count:
                count[goal_id] = 0
                names.update({f"#c{goal_id}": f"c_{goal_id}", f"#n{goal_id}": f"n_{goal_id}"})
                sets.append(f"#n{goal_id} = :n{goal_id}")
                values[f":n{goal_id}"] = {"S": name}
            count[goal_id] += 1
            if currency is not None and amount is not None:
                if goal_id not in revenue:
                    revenue[goal_id] = Decimal(0)
                    names.update({f"#r{goal_id}": f"r_{goal_id}", f"#u{goal_id}": f"cur_{goal_id}"})
                    sets.append(f"#u{goal_id} = :u{goal_id}")
                    values[f":u{goal_id}"] = {"S": currency}
                revenue[goal_id] += amount
    adds = [f"#c{goal_id} :c{goal_id}" for goal_id in count]
    adds += [f"#r{goal_id} :r{goal_id}" for goal_id in revenue]
    values.update({f":c{goal_id}": {"N": str(n)} for goal_id, n in count.items()})
    values.update({f":r{goal_id}": {"N": str(total)} for goal_id, total in revenue.items()})
    markers: list[Write] = [
        {
            "Put": {
                "TableName": _table(),
                "Item": {
                    "pk": {"S": f"CONVERTED#{account}#{hit_id}"},
                    "sk": {"S": "hit"},
                    "expires_at": {"N": str(now + MARKER_KEPT_SECONDS)},
                },
                "ConditionExpression": "attribute_not_exists(pk)",
            }
        }
        for hit_id, _ in hits
    ]
    counters: Write = {
        "Update": {
            "TableName": _table(),
            "Key": _counter_key(account, website_id, minute),
            "UpdateExpression": f"SET {', '.join(sets)} ADD {', '.join(adds)}",
            "ConditionExpression": "attribute_not_exists(sent_at)",
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }
    }
    listed: Write = {
        "Put": {
            "TableName": _table(),
            "Item": {
                "pk": {"S": f"CONVERSIONS@{minute}"},
                "sk": {"S": f"{account}#{website_id}"},
                "expires_at": {"N": str(now + MINUTE_KEPT_SECONDS)},
            },
        }
    }
    try:
        transactions.write([*markers, counters, listed])
    except transactions.ConditionFailed as failed:
        if len(hits) in failed.indexes:
            raise MinuteSent(minute) from None
        raise Counted({hits[index][0] for index in failed.indexes}) from None


def websites_of(minute: str) -> list[tuple[str, int]]:
    """The (account, website id) with conversions counted in `minute`."""
    query: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": f"CONVERSIONS@{minute}"}},
    }
    found = []
    for item in every_item(query):
        account, _, website = item["sk"]["S"].rpartition("#")
        found.append((account, int(website)))
    return found


def claim(
    account: str, website_id: int, minute: str, sent_at: str
) -> dict[int, dict[str, Any]] | None:
    """Mark the website's minute sent and give its counts (`{goal id: {"name", "count",
    "currency", "revenue"}}`); None when it was sent already (or has none), so a minute is
    sent at most once."""
    try:
        answer = client("dynamodb").update_item(
            TableName=_table(),
            Key=_counter_key(account, website_id, minute),
            UpdateExpression="SET sent_at = :now",
            ConditionExpression="attribute_exists(pk) AND attribute_not_exists(sent_at)",
            ExpressionAttributeValues={":now": {"S": sent_at}},
            ReturnValues="ALL_NEW",
        )
    except Exception as err:
        if error_code(err) == "ConditionalCheckFailedException":
            return None
        raise
    goals: dict[int, dict[str, Any]] = {}
    for name, attr in answer["Attributes"].items():
        kind, _, goal_id = name.partition("_")
        if kind not in ("c", "n", "r", "cur") or not goal_id.isdigit():
            continue
        field = {"c": "count", "n": "name", "r": "revenue", "cur": "currency"}[kind]
        value = from_attr(attr)
        if kind == "r":
            value = Decimal(attr["N"])
        goals.setdefault(int(goal_id), {})[field] = value
    return goals


def done(minute: str, account: str, website_id: int) -> None:
    """Take the website off the minute's list, once its minute was claimed (or found sent),
    so later passes do not read it again."""
    client("dynamodb").delete_item(
        TableName=_table(),
        Key={"pk": {"S": f"CONVERSIONS@{minute}"}, "sk": {"S": f"{account}#{website_id}"}},
    )
