"""Client recipients of a website's or an audit's digest, in the accounts table.

Items: `RECIPIENTS#<account>`/`<target>#<address id>` where the target is `website:<id>` or
`audit:<id>` and the address id a hash of the address (the links mailed carry it, never the
address), with `email`, `confirmed`, the moments of each step, and for a website's
recipient the id of the saved segment its digest shows (`segment`, absent for none). One
partition an account: its digest reads every recipient of every target in one Query,
bounded by the targets' `recipients.MAX_RECIPIENTS` each.
"""

from __future__ import annotations

from typing import Any

from sitelens.core import scopes
from sitelens.core.config import settings
from sitelens.data.clients import client
from sitelens.data.items import Item, error_code, from_item, to_item


def _table() -> str:
    return settings().accounts_table


def _key(account: str, target: str, address_id: str) -> dict[str, Any]:
    return {"pk": {"S": f"RECIPIENTS#{account}"}, "sk": {"S": f"{target}#{address_id}"}}


def _shown(item: dict[str, Any]) -> Item:
    found = from_item(item)
    target, _, address_id = str(found.pop("sk")).rpartition("#")
    found.pop("pk")
    return {**found, "target": target, "id": address_id}


def _admitted(target: str) -> bool:
    """Whether the scope in force reaches the target (an audit's record is read, scoped,
    before its recipients are; outside every scope this raises `scopes.Undeclared`)."""
    scope = scopes.current()
    kind, _, record_id = target.partition(":")
    return kind != "website" or scope.admits("websites", {"id": int(record_id)})


def of_target(account: str, target: str, limit: int) -> list[Item]:
    """A target's recipients (at most `limit`), in address id order; within the scope."""
    if not _admitted(target):
        return []
    answer = client("dynamodb").query(
        TableName=_table(),
        KeyConditionExpression="pk = :pk AND begins_with(sk, :target)",
        ExpressionAttributeValues={
            ":pk": {"S": f"RECIPIENTS#{account}"},
            ":target": {"S": f"{target}#"},
        },
        Limit=limit,
        ConsistentRead=True,
    )
    return [_shown(item) for item in answer["Items"]]


def of_account(account: str, limit: int) -> list[Item]:
    """Every recipient of the account's targets (at most `limit`; a digest's); within the
    scope."""
    scopes.current()  # a read outside every scope answers nothing: it raises
    found: list[Item] = []
    request: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": f"RECIPIENTS#{account}"}},
    }
    while len(found) < limit:
        answer = client("dynamodb").query(**request, Limit=limit - len(found))
        found += [_shown(item) for item in answer["Items"]]
        if "LastEvaluatedKey" not in answer:
            break
        request["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
    return [entry for entry in found if _admitted(str(entry["target"]))]


def get(account: str, target: str, address_id: str) -> Item | None:
    """One recipient, or None; within the scope."""
    if not _admitted(target):
        return None
    answer = client("dynamodb").get_item(
        TableName=_table(), Key=_key(account, target, address_id), ConsistentRead=True
    )
    return _shown(answer["Item"]) if "Item" in answer else None


def add(
    account: str, target: str, address_id: str, email: str, now: str, segment: int | None = None
) -> bool:
    """Write an unconfirmed recipient (with the saved segment its digest shows, if any);
    False when the address is there already."""
    fields: dict[str, Any] = {"email": email, "confirmed": False, "created_at": now}
    if segment is not None:
        fields["segment"] = segment
    item = {**_key(account, target, address_id), **to_item(fields)}
    try:
        client("dynamodb").put_item(
            TableName=_table(), Item=item, ConditionExpression="attribute_not_exists(pk)"
        )
    except Exception as err:
        if error_code(err) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def confirm(account: str, target: str, address_id: str, now: str) -> bool:
    """Mark a recipient confirmed; False when there is no such recipient (any more)."""
    try:
        client("dynamodb").update_item(
            TableName=_table(),
            Key=_key(account, target, address_id),
            UpdateExpression=(
                "SET confirmed = :yes, confirmed_at = if_not_exists(confirmed_at, :now)"
            ),
            ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeValues={":yes": {"BOOL": True}, ":now": {"S": now}},
        )
    except Exception as err:
        if error_code(err) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def remove(account: str, target: str, address_id: str) -> bool:
    """Delete a recipient; whether there was one."""
    answer = client("dynamodb").delete_item(
        TableName=_table(), Key=_key(account, target, address_id), ReturnValues="ALL_OLD"
    )
    return "Attributes" in answer
