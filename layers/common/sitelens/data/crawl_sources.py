"""Where each website's access logs are pulled from (docs/crawlers.md): one item per
website in the websites table's partition `#crawl-sources`, so the scheduled pull reads
them all with a Query of one partition (never a Scan), and a keyed request reads its own
website's with a GetItem (its account checked, `core.scopes` applied). How far a pull got
is a checkpoint (`data.checkpoints`, job `crawl-pull#<website id>`)."""

from __future__ import annotations

from typing import Any, Final

from sitelens.core import scopes
from sitelens.core.config import settings
from sitelens.data.clients import client
from sitelens.data.items import Item, from_item, to_item

PARTITION: Final = "#crawl-sources"


def _key(website_id: int) -> dict[str, Any]:
    return {"account": {"S": PARTITION}, "id": {"N": str(int(website_id))}}


def put(account: str, website_id: int, source: Item) -> None:
    """Set the website's source (replacing one there)."""
    client("dynamodb").put_item(
        TableName=settings().websites_table,
        Item={**to_item({**source, "owner": account}), **_key(website_id)},
    )


def get(account: str, website_id: int) -> Item | None:
    """The account's website's source, or None (another account's, or a website the key
    may not see, is None too)."""
    answer = client("dynamodb").get_item(
        TableName=settings().websites_table, Key=_key(website_id), ConsistentRead=True
    )
    if "Item" not in answer:
        return None
    found = from_item(answer["Item"])
    website = {"account": account, "id": int(website_id)}
    if found.get("owner") != account or not scopes.current().admits("websites", website):
        return None
    return found


def delete(account: str, website_id: int) -> bool:
    """Remove the account's website's source; False when it had none."""
    if get(account, website_id) is None:
        return False
    client("dynamodb").delete_item(TableName=settings().websites_table, Key=_key(website_id))
    return True


def every() -> list[Item]:
    """Every website's source (the scheduled pull, under the system scope)."""
    if scopes.current() is not scopes.SYSTEM:  # every account's: a system job's read only
        raise scopes.Undeclared("Every website's log source is read by the system alone.")
    query: dict[str, Any] = {
        "TableName": settings().websites_table,
        "KeyConditionExpression": "account = :partition",
        "ExpressionAttributeValues": {":partition": {"S": PARTITION}},
    }
    found: list[Item] = []
    while True:
        answer = client("dynamodb").query(**query)
        found += [from_item(item) for item in answer["Items"]]
        if "LastEvaluatedKey" not in answer:
            return found
        query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
