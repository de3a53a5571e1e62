"""An agency's workspaces, in the accounts table: a workspace is an account of its own
(`ACCOUNT#<id>`/`ACCOUNT`, with `parent`: its agency's id), so its records live in its own
partition of every table, and `WORKSPACES#<agency>`/`<id>` lists it under its agency (one
Query), made together; `ADDS#WORKSPACES#<agency>` keeps the cap on an agency's workspaces
when creates come at once (`caps`)."""

from __future__ import annotations

from typing import Any

from sitelens.core.config import settings
from sitelens.data import caps
from sitelens.data.clients import every_item
from sitelens.data.items import Item, Write, from_item, to_item


def _table() -> str:
    return settings().accounts_table


def put(agency_id: str, workspace_id: str, name: str, created_at: str, limit: int) -> bool:
    """Make the workspace's account and its entry under the agency; False when the agency
    has `limit` workspaces already."""
    account = {"name": name, "created_at": created_at, "parent": agency_id}
    listed = {"name": name, "created_at": created_at}
    writes: list[Write] = [
        {
            "Put": {
                "TableName": _table(),
                "Item": {
                    "pk": {"S": f"ACCOUNT#{workspace_id}"},
                    "sk": {"S": "ACCOUNT"},
                    **to_item(account),
                },
                "ConditionExpression": "attribute_not_exists(pk)",
            }
        },
        {
            "Put": {
                "TableName": _table(),
                "Item": {
                    "pk": {"S": f"WORKSPACES#{agency_id}"},
                    "sk": {"S": workspace_id},
                    **to_item(listed),
                },
            }
        },
    ]

    def count() -> int:
        return len(of_agency(agency_id))

    return caps.add_within(_table(), f"WORKSPACES#{agency_id}", writes, count, limit)


def of_agency(agency_id: str) -> list[Item]:
    """The agency's workspaces (`id`, `name`, `created_at`), in no particular order."""
    query: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": f"WORKSPACES#{agency_id}"}},
        "ConsistentRead": True,
    }
    found = []
    for raw in every_item(query):
        item = from_item(raw)
        found.append({"id": item["sk"], "name": item["name"], "created_at": item["created_at"]})
    return found
