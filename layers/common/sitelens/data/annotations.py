"""A website's annotations (a deploy, a campaign: a date or time, a text, a link), kept in
the websites table under a reserved partition of their own per website,
`#annotations:<account>:<website id>`, as records (`data.records`: versioned writes), with
ids from a counter item of that website, so that a website's annotations are one `Query`
and never mix with another account's or website's.
"""

from __future__ import annotations

from typing import Any

from sitelens.core import scopes
from sitelens.core.config import settings
from sitelens.data import records
from sitelens.data.clients import client, every_item
from sitelens.data.items import Item, from_item
from sitelens.data.records import Collection

COLLECTION = Collection(name="annotations", table=lambda: settings().websites_table, orders={})
_PARTITION = "#annotations:{account}:{website_id}"
_COUNTER = "#annotation-counter:{account}"


def partition(account: str, website_id: int) -> str:
    """Where a website's annotations live (the `account` of their items)."""
    return _PARTITION.format(account=account, website_id=int(website_id))


def allocate_id(account: str, website_id: int) -> int:
    """The website's next annotation id, from its counter (ids are never given again)."""
    answer = client("dynamodb").update_item(
        TableName=settings().websites_table,
        Key={"account": {"S": _COUNTER.format(account=account)}, "id": {"N": str(website_id)}},
        UpdateExpression="ADD last_id :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    return int(answer["Attributes"]["last_id"]["N"])


def of_website(account: str, website_id: int) -> list[Item]:
    """Every annotation of the website, in id order (a `Query` of its partition, at most
    `websites.annotations.rules.MAX_ANNOTATIONS` items)."""
    query: dict[str, Any] = {
        "TableName": settings().websites_table,
        "KeyConditionExpression": "account = :partition",
        "ExpressionAttributeValues": {":partition": {"S": partition(account, website_id)}},
    }
    return scopes.visible(COLLECTION.name, (from_item(item) for item in every_item(query)))


def get(account: str, website_id: int, annotation_id: int) -> Item | None:
    return records.get(COLLECTION, partition(account, website_id), annotation_id)


def create(record: Item) -> Item:
    """Store a new annotation (its `account` is the website's partition)."""
    return records.create(COLLECTION, record)


def update(
    account: str, website_id: int, annotation_id: int, change: records.Change
) -> Item | None:
    return records.update(COLLECTION, partition(account, website_id), annotation_id, change)


def delete(account: str, website_id: int, annotation_id: int) -> Item | None:
    return records.delete(COLLECTION, partition(account, website_id), annotation_id)
