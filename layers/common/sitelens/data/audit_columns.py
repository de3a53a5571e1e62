"""What a run's analysis computes beyond its issues, in the run's partition of the crawls
table (`data.audits`), and the page items read by URL:

- `order#<name>#<part>`: a run's pages in one sort order (`audits.columns`), as JSON lists
  of `[url, link_score, inlinks]` of at most `ORDER_BYTES` an item, so that a sorted page
  of the list reads one or two of them and its pages by key, never the whole run;
- `cluster#<n>`: a near-duplicate cluster (`audits.duplicates`), one item each (its listed
  pages and their snippets are bounded: some KB).
"""

from __future__ import annotations

import json
from typing import Any

from sitelens.core.config import settings
from sitelens.data import batches
from sitelens.data.audits import PAGE, _items, item_key
from sitelens.data.clients import client
from sitelens.data.items import Item, from_item, to_item

ORDER = "order#"
CLUSTER = "cluster#"
ORDER_BYTES = 32 * 1024  # of entries an item: about 500 pages, 4 read units a list page
Entry = list[Any]  # [url, link_score, inlinks]


def _put_all(items: list[Item]) -> None:
    batches.write(
        settings().audit_crawls_table, [{"PutRequest": {"Item": to_item(i)}} for i in items]
    )


def save_orders(crawl: str, orders: dict[str, list[Entry]], expires_at: int) -> dict[str, int]:
    """Store each order's entries in items of at most `ORDER_BYTES`; how many parts each
    order took. `batches.Unprocessed` when some could not be written."""
    items: list[Item] = []
    parts: dict[str, int] = {}
    for name, entries in orders.items():
        chunk: list[str] = []
        size = part = 0
        for entry in [*entries, None]:
            encoded = json.dumps(entry, separators=(",", ":")) if entry is not None else ""
            if entry is None or (chunk and size + len(encoded) + 1 > ORDER_BYTES):
                key = f"{ORDER}{name}#{part:05d}"
                entries_json = "[" + ",".join(chunk) + "]"
                items.append(
                    {"crawl": crawl, "key": key, "entries": entries_json, "expires_at": expires_at}
                )
                chunk, size, part = [], 0, part + 1
            if entry is not None:
                chunk.append(encoded)
                size += len(encoded) + 1
        parts[name] = part
    _put_all(items)
    return parts


def order_part(crawl: str, name: str, part: int) -> list[Entry]:
    """One part of an order's entries (empty past its last)."""
    answer = client("dynamodb").get_item(
        TableName=settings().audit_crawls_table, Key=item_key(crawl, f"{ORDER}{name}#{part:05d}")
    )
    found = answer.get("Item")
    return json.loads(found["entries"]["S"]) if found else []


def pages_by_url(crawl: str, urls: list[str]) -> dict[str, Item]:
    """The run's page items of these URLs (at most a list's page of them), by URL."""
    keys = [item_key(crawl, PAGE + url) for url in dict.fromkeys(urls)]
    found = batches.get(settings().audit_crawls_table, keys)
    return {item["url"]: item for item in (from_item(i) for i in found)}


def texts(crawl: str, urls: list[str]) -> dict[str, str]:
    """The stored text samples (`facts.text_sample`) of these pages, by URL."""
    keys = [item_key(crawl, PAGE + url) for url in dict.fromkeys(urls)]
    found = batches.get(
        settings().audit_crawls_table,
        keys,
        projection="#url, text_sample",
        names={"#url": "url"},
    )
    return {item["url"]["S"]: item["text_sample"]["S"] for item in found if "text_sample" in item}


def save_clusters(crawl: str, clusters: list[Item], expires_at: int) -> None:
    """Store a run's near-duplicate clusters, one item each, in their order."""
    _put_all(
        [
            {
                "crawl": crawl,
                "key": f"{CLUSTER}{n:05d}",
                "cluster": json.dumps(cluster),
                "expires_at": expires_at,
            }
            for n, cluster in enumerate(clusters)
        ]
    )


def clusters(crawl: str) -> list[Item]:
    """A run's near-duplicate clusters in their order (at most `duplicates.MAX_CLUSTERS`)."""
    found: list[Item] = []
    after: str | None = None
    while True:
        chunk, after = _items(crawl, CLUSTER, after, 100)
        found.extend(json.loads(item["cluster"]) for item in chunk)
        if after is None:
            return found
