"""A run's frontier: the items of the URLs an audit's crawl claims, fetches and counts
(`page#<url>` in the run's partition of AuditCrawlsTable; `data.audits` keeps the run's
state and reads its pages).

A URL is claimed with a conditional put (each URL once), then counted on the run's state
while it has room (`max_pages`); a fetch step's findings are stored and its step counted
in one transaction, so a step that comes again, or a copy of it, counts once.
"""

from __future__ import annotations

import enum
import json
from typing import Any

from sitelens.core import clock
from sitelens.core.config import settings
from sitelens.data import transactions
from sitelens.data.audits import PAGE, STATE, item_key
from sitelens.data.clients import client
from sitelens.data.items import Item, to_attr, to_item


class Claim(enum.Enum):
    """What claiming a URL did: added it (NEW), found it claimed before (KNOWN), or found
    no room for it (FULL: the run's counter has reached `max_pages`, for good)."""

    NEW = "new"
    KNOWN = "known"
    FULL = "full"


def claim_page(
    crawl: str, page: Item, max_pages: int, expires_at: int, counter: str = "discovered"
) -> Claim:
    """Add a URL to the frontier, once, while the run's `counter` (internal pages, or
    external links checked) is below `max_pages`.

    The page item is put on the condition that it is new (a URL already known costs one
    refused write), then counted on the condition that the run has room; a page the run
    has no room for is taken out again.
    """
    table = settings().audit_crawls_table
    key = PAGE + page["url"]
    try:
        client("dynamodb").put_item(
            TableName=table,
            Item=to_item({"crawl": crawl, "key": key, **page, "expires_at": expires_at}),
            ConditionExpression="attribute_not_exists(crawl)",
        )
    except client("dynamodb").exceptions.ConditionalCheckFailedException:
        return Claim.KNOWN
    count = {
        "TableName": table,
        "Key": item_key(crawl, STATE),
        "UpdateExpression": "ADD #counter :one, pending :one",
        "ConditionExpression": "attribute_not_exists(#counter) OR #counter < :max",
        "ExpressionAttributeNames": {"#counter": counter},
        "ExpressionAttributeValues": {":one": {"N": "1"}, ":max": {"N": str(max_pages)}},
    }
    try:  # retried while it conflicts with a step's transaction on the state (`finish_pages`)
        transactions.write([{"Update": count}])
    except transactions.ConditionFailed:
        client("dynamodb").delete_item(TableName=table, Key=item_key(crawl, key))
        return Claim.FULL
    return Claim.NEW


def save_page(crawl: str, url: str, facts: Item) -> None:
    """Add to what the crawl knows of a URL (lists and mappings as JSON)."""
    client("dynamodb").update_item(**_page_update(crawl, url, facts))


def is_fetched(crawl: str, url: str) -> bool:
    """Whether a page of the run has been fetched and counted."""
    answer = client("dynamodb").get_item(
        TableName=settings().audit_crawls_table,
        Key=item_key(crawl, PAGE + url),
        ProjectionExpression="#state",
        ExpressionAttributeNames={"#state": "state"},
        ConsistentRead=True,
    )
    return answer.get("Item", {}).get("state", {}).get("S") == "fetched"


def finish_pages(crawl: str, found: list[tuple[str, Item, int]]) -> int:
    """Store what fetch steps found, (url, facts, pages fetched: 1, or 0 for an external
    link), and count the steps done (`pending` down by one each, `fetched` up), in one
    transaction, leaving out the URLs already `fetched` (their step came again, or a copy
    of it did): each step counts once, and a step counts only with its page. How many
    were stored (copies of one URL in `found` count once: a transaction may name an item
    only once)."""
    firsts: dict[str, tuple[str, Item, int]] = {}
    for entry in found:
        firsts.setdefault(entry[0], entry)
    found = list(firsts.values())
    while found:
        state = {
            "TableName": settings().audit_crawls_table,
            "Key": item_key(crawl, STATE),
            "UpdateExpression": "SET progressed_at = :now ADD pending :steps, fetched :fetched",
            "ExpressionAttributeValues": {
                ":now": {"S": clock.now_iso()},
                ":steps": {"N": str(-len(found))},
                ":fetched": {"N": str(sum(fetched for _, _, fetched in found))},
            },
        }
        pages = [_page_update(crawl, url, facts, first=True) for url, facts, _ in found]
        try:
            transactions.write([{"Update": update} for update in [*pages, state]])
            return len(found)
        except transactions.ConditionFailed as failed:
            found = [page for n, page in enumerate(found) if n not in failed.indexes]
    return 0


def _page_update(crawl: str, url: str, facts: Item, first: bool = False) -> dict[str, Any]:
    """The update of a page's item by its facts; with `first`, only while not `fetched`."""
    fields = {k: json.dumps(v) if isinstance(v, list | dict) else v for k, v in facts.items()}
    names = {f"#f{n}": name for n, name in enumerate(fields)}
    values = {f":v{n}": to_attr(value) for n, value in enumerate(fields.values())}
    request: dict[str, Any] = {
        "TableName": settings().audit_crawls_table,
        "Key": item_key(crawl, PAGE + url),
        "UpdateExpression": "SET " + ", ".join(f"#f{n} = :v{n}" for n in range(len(fields))),
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
    }
    if first:
        names["#state"] = "state"
        values[":fetched"] = {"S": "fetched"}
        request["ConditionExpression"] = "attribute_exists(crawl) AND #state <> :fetched"
    return request
