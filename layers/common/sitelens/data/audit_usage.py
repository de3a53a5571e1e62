"""Each account's use of audits, the one item its caps are counted on
(`sitelens.audits.caps`): the runs it started that may still be going, the pages of the
runs it started in the last 24 hours (by minute), and its scheduled audits.

One item in the audits table, under a reserved partition beside the id counter and the
claims (`#usage:<account>`, id 0), written whole on the condition of the version read, so
that two starts at once cannot both take the last place. Counting is one GetItem; what
it lists is checked with at most a cap's number of reads (`state`, `schedules`), never a
Query of the account's audits or a Scan.
"""

from __future__ import annotations

import json
from typing import Any

from sitelens.core.config import settings
from sitelens.data.clients import client
from sitelens.data.items import Item

USAGE_PARTITION_PREFIX = "#usage:"
_EMPTY = {"going": "[]", "pages": "{}", "scheduled": "[]"}  # each kept as JSON text


def _key(account: str) -> dict[str, Any]:
    return {"account": {"S": f"{USAGE_PARTITION_PREFIX}{account}"}, "id": {"N": "0"}}


def usage(account: str) -> tuple[Item, int]:
    """The account's usage (`going`, `pages`, `scheduled`; empty for a new account) and its
    version (0 before the first write)."""
    answer = client("dynamodb").get_item(
        TableName=settings().audits_table, Key=_key(account), ConsistentRead=True
    )
    item = answer.get("Item") or {}
    found = {name: json.loads(item.get(name, {"S": empty})["S"]) for name, empty in _EMPTY.items()}
    return found, int(item["version"]["N"]) if "version" in item else 0


def replace(account: str, found: Item, version: int) -> bool:
    """Write the account's usage, if it is still at `version`; whether it was written."""
    condition = "attribute_not_exists(id)" if version == 0 else "version = :seen"
    request: dict[str, Any] = {
        "TableName": settings().audits_table,
        "Item": {
            **_key(account),
            **{name: {"S": json.dumps(found[name])} for name in _EMPTY},
            "version": {"N": str(version + 1)},
        },
        "ConditionExpression": condition,
    }
    if version:
        request["ExpressionAttributeValues"] = {":seen": {"N": str(version)}}
    try:
        client("dynamodb").put_item(**request)
    except client("dynamodb").exceptions.ConditionalCheckFailedException:
        return False
    return True


def schedules(account: str, audit_ids: list[int]) -> dict[int, str]:
    """The schedule of each of the account's audits named (one GetItem each; the caller
    names at most a cap's number); an audit that is gone is left out."""
    found: dict[int, str] = {}
    for audit_id in audit_ids:
        answer = client("dynamodb").get_item(
            TableName=settings().audits_table,
            Key={"account": {"S": account}, "id": {"N": str(audit_id)}},
            ConsistentRead=True,
            ProjectionExpression="#schedule",
            ExpressionAttributeNames={"#schedule": "schedule"},
        )
        if "Item" in answer:
            found[audit_id] = answer["Item"].get("schedule", {}).get("S", "none")
    return found
