"""Share dashboards kept a short while, and each website's computations of them per hour, as
items of the stats table.

A dashboard: `dashboard#<website id>`, `figures#<first day>#<last day>`, its figures as
zlib-compressed JSON (`body`), `computed_at` (Unix seconds), expiring (TTL) a day later so
that an older copy can stand in while the website's hourly budget is spent. A budget:
`dashboard#<website id>`, `budget#<YYYY-MM-DDTHH>` with `spent`, the computations of that
UTC hour, raised by one conditional UpdateItem each (never past the allowance). A claim:
`dashboard#<website id>`, `computing#<first day>#<last day>` with `until`, written while
one view computes those days (a conditional PutItem), deleted when it is done, so that
views arriving meanwhile wait for its figures instead of computing them again.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from datetime import date
from typing import Any, Final

from sitelens.core.config import settings
from sitelens.data.clients import client
from sitelens.data.items import error_code

KEPT_SECONDS: Final = 86_400  # a stale copy outlives its freshness, for a spent budget
_BUDGET_KEPT_SECONDS: Final = 7_200  # an hour's count, then TTL takes it


@dataclass(frozen=True)
class Kept:
    figures: dict[str, Any]
    computed_at: float  # Unix seconds


def _key(website_id: int, slot: str) -> dict[str, Any]:
    return {"series": {"S": f"dashboard#{website_id}"}, "slot": {"S": slot}}


def _figures_slot(first: date, last: date) -> str:
    return f"figures#{first.isoformat()}#{last.isoformat()}"


def get(website_id: int, first: date, last: date) -> Kept | None:
    """The website's dashboard of these days as last computed, if it is still kept."""
    found = client("dynamodb").get_item(
        TableName=settings().stats_table, Key=_key(website_id, _figures_slot(first, last))
    )
    item = found.get("Item")
    if not item:
        return None
    figures = json.loads(zlib.decompress(item["body"]["B"]))
    return Kept(figures, float(item["computed_at"]["N"]))


def put(website_id: int, first: date, last: date, figures: dict[str, Any], now: float) -> None:
    """Keep the dashboard computed at `now`; a later write wins (same figures or newer)."""
    body = zlib.compress(json.dumps(figures, separators=(",", ":")).encode())
    client("dynamodb").put_item(
        TableName=settings().stats_table,
        Item={
            **_key(website_id, _figures_slot(first, last)),
            "body": {"B": body},
            "computed_at": {"N": repr(now)},
            "expires_at": {"N": str(int(now) + KEPT_SECONDS)},
        },
    )


def spend(website_id: int, hour: str, allowed: int, now: float) -> bool:
    """Count one computation in the website's budget of the UTC hour `hour`; False (and
    nothing counted) once `allowed` were counted in it."""
    try:
        client("dynamodb").update_item(
            TableName=settings().stats_table,
            Key=_key(website_id, f"budget#{hour}"),
            UpdateExpression="ADD spent :one SET expires_at = :expires",
            ConditionExpression="attribute_not_exists(spent) OR spent < :allowed",
            ExpressionAttributeValues={
                ":one": {"N": "1"},
                ":allowed": {"N": str(allowed)},
                ":expires": {"N": str(int(now) + _BUDGET_KEPT_SECONDS)},
            },
        )
    except Exception as err:
        if error_code(err) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def claim(website_id: int, first: date, last: date, now: float, seconds: float) -> bool:
    """Claim the computation of the days for `seconds` (past them a claim is stale: its
    computer died); False while another view's claim holds."""
    try:
        client("dynamodb").put_item(
            TableName=settings().stats_table,
            Item={
                **_key(website_id, f"computing#{first.isoformat()}#{last.isoformat()}"),
                "until": {"N": repr(now + seconds)},
                "expires_at": {"N": str(int(now + seconds) + _BUDGET_KEPT_SECONDS)},
            },
            ConditionExpression="attribute_not_exists(#until) OR #until < :now",
            ExpressionAttributeNames={"#until": "until"},
            ExpressionAttributeValues={":now": {"N": repr(now)}},
        )
    except Exception as err:
        if error_code(err) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def release(website_id: int, first: date, last: date) -> None:
    """End a claim of the days' computation (done, or not to be done)."""
    client("dynamodb").delete_item(
        TableName=settings().stats_table,
        Key=_key(website_id, f"computing#{first.isoformat()}#{last.isoformat()}"),
    )
