"""Goal conversions counted per website and minute for `goal.converted` webhooks, in the
webhooks table (`sitelens.analytics.converted` writes them, `sitelens.webhooks.goals`
sends them).

Items, each removed by the table's TTL:
- `CONVERTED#<account>#<hit id>`/`hit`: the hit's conversions were counted (15 days,
  beyond the dead-letter queue's 14), so a hit delivered or redriven again adds nothing;
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
from sitelens.data import transactions
from sitelens.data.clients import client
from sitelens.data.items import Write, error_code, from_attr

# a hit's marker outlives every redelivery of it: the dead-letter queue keeps hits 14 days
MARKER_KEPT_SECONDS = 15 * 86_400
MINUTE_KEPT_SECONDS = 7 * 86_400


class MinuteSent(Exception):
    """The minute's conversions were sent already: count these in a later minute."""


def _table() -> str:
    return settings().webhooks_table


def _counter_key(account: str, website_id: int, minute: str) -> dict[str, Any]:
    return {"pk": {"S": f"CONVERSIONS#{account}#{website_id}"}, "sk": {"S": minute}}


def add(
    account: str,
    hit_id: str,
    website_id: int,
    minute: str,
    goals: list[tuple[int, str, str | None, Decimal | None]],
    now: int,
) -> bool:
    """Count one hit's conversions (each goal's `(id, name, currency, revenue)`) in the
    website's `minute`, once per hit: False when the hit was counted before. MinuteSent
    when that minute was sent already (nothing written)."""
    names: dict[str, str] = {}
    values: dict[str, Any] = {":one": {"N": "1"}, ":expires": {"N": str(now + MINUTE_KEPT_SECONDS)}}
    adds, sets = [], ["expires_at = :expires"]
    for goal_id, name, currency, revenue in goals:
        names.update({f"#c{goal_id}": f"c_{goal_id}", f"#n{goal_id}": f"n_{goal_id}"})
        adds.append(f"#c{goal_id} :one")
        sets.append(f"#n{goal_id} = :n{goal_id}")
        values[f":n{goal_id}"] = {"S": name}
        if currency is not None and revenue is not None:
            names.update({f"#r{goal_id}": f"r_{goal_id}", f"#u{goal_id}": f"cur_{goal_id}"})
            adds.append(f"#r{goal_id} :r{goal_id}")
            sets.append(f"#u{goal_id} = :u{goal_id}")
            values[f":r{goal_id}"] = {"N": str(revenue)}
            values[f":u{goal_id}"] = {"S": currency}
    writes: list[Write] = [
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
        },
        {
            "Update": {
                "TableName": _table(),
                "Key": _counter_key(account, website_id, minute),
                "UpdateExpression": f"SET {', '.join(sets)} ADD {', '.join(adds)}",
                "ConditionExpression": "attribute_not_exists(sent_at)",
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": values,
            }
        },
        {
            "Put": {
                "TableName": _table(),
                "Item": {
                    "pk": {"S": f"CONVERSIONS@{minute}"},
                    "sk": {"S": f"{account}#{website_id}"},
                    "expires_at": {"N": str(now + MINUTE_KEPT_SECONDS)},
                },
            }
        },
    ]
    try:
        transactions.write(writes)
    except transactions.ConditionFailed as failed:
        if 0 in failed.indexes:
            return False
        raise MinuteSent(minute) from None
    return True


def websites_of(minute: str) -> list[tuple[str, int]]:
    """The (account, website id) with conversions counted in `minute`."""
    query: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": f"CONVERSIONS@{minute}"}},
    }
    found = []
    while True:
        answer = client("dynamodb").query(**query)
        for item in answer["Items"]:
            account, _, website = item["sk"]["S"].rpartition("#")
            found.append((account, int(website)))
        if "LastEvaluatedKey" not in answer:
            return found
        query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


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
