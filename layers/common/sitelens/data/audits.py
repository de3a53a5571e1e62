"""Site audits: their records, and each run's crawl (state, frontier, pages and issues).

An audit record lives in the account's partition of the audits table, as reports do
(`records`: ids from a counter, versioned writes). A run's crawl lives in the crawls table
under its own partition, `<account>#<audit id>#<run>`, so a run is read with Queries of
one partition and never a Scan:

- `#state`: the run's status and counters (`discovered`, `pending`, `fetched`), `seeding`
  until its start step is counted, when a step last ended or moved the status
  (`progressed_at`), the summary of a done run and
  when its events went out (`notified_at`) and what the workers share (robots.txt, the
  settings);
- `page#<url>`: one item per URL, claimed, stored and counted by `data.frontier`, read
  here;
- `issue#<code>`: the cross-page checks' results, written when the run is analysed.

The politeness slots of hosts and the fair shares of accounts, which every run shares, are
items of the same table outside any run's partition (`data.slots`).

An audit's share id (`sitelens.sharing.links`) is claimed in the audits table with the
record, as a report's is (`#claim:share:<share id>`), and released with it.

Every crawl item carries `expires_at` (TTL): deleting an audit deletes its record at
once, and its runs' items expire without a request having to delete 100,000 of them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from sitelens.core import clock, scopes
from sitelens.core.config import settings
from sitelens.data import batches, records
from sitelens.data.clients import client
from sitelens.data.items import Item, from_item, to_attr, to_item
from sitelens.data.records import Collection

COLLECTION = Collection(name="audits", table=lambda: settings().audits_table, orders={})
STATE = "#state"
PAGE = "page#"
ISSUE = "issue#"
_QUERY_LIMIT = 500  # items per Query of a run's pages (each is at most a few KB)


def allocate_id() -> int:
    return records.allocate_id(COLLECTION)


def get(account: str, audit_id: int) -> Item | None:
    return records.get(COLLECTION, account, audit_id)


def create(record: Item) -> Item:
    """Store a new audit with the claim of its share id."""
    return records.create(COLLECTION, record, claim=_share_claim(record["share_id"]))


def by_share_id(share_id: str) -> Item | None:
    """The audit with this share id, whichever account it belongs to (its claim names the
    account and id), or None."""
    claim = records.get_claim(COLLECTION, _share_claim(share_id), consistent=True)
    if claim is None:
        return None
    found = get(claim["owner"], int(claim["record_id"]))
    return found if found is not None and found.get("share_id") == share_id else None


def _share_claim(share_id: str) -> str:
    return f"share:{share_id}"


def update(account: str, audit_id: int, change: records.Change) -> Item | None:
    return records.update(COLLECTION, account, audit_id, change)


def delete(account: str, audit_id: int) -> Item | None:
    """Delete the audit and release its share id's claim (an audit from before share ids
    has none: its release deletes nothing)."""
    return records.delete(
        COLLECTION, account, audit_id, claim=lambda r: _share_claim(r.get("share_id", ""))
    )


def of_account(account: str, limit: int) -> list[Item]:
    """Up to `limit` audits of the account, in id order, with what a digest shows of them
    (`id`, `url`, `privacy`, `share_id`, `runs`, `regressed`): Queries of its partition."""
    query: dict[str, Any] = {
        "TableName": settings().audits_table,
        "KeyConditionExpression": "account = :account",
        "ExpressionAttributeValues": {":account": {"S": account}},
        "ProjectionExpression": "id, #url, privacy, share_id, runs, regressed",
        "ExpressionAttributeNames": {"#url": "url"},
    }
    found: list[Item] = []
    while len(found) < limit:
        answer = client("dynamodb").query(**query, Limit=min(limit - len(found), 100))
        found.extend(scopes.visible(COLLECTION.name, (from_item(i) for i in answer["Items"])))
        if "LastEvaluatedKey" not in answer:
            break
        query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
    return found


# Scheduled audits carry `schedule_due` (their schedule) and `next_run_at`, the keys of the
# sparse index `due_by_next_run`: the scheduler reads each schedule's due audits with a
# Query, never a Scan; an audit without a schedule is not in it.
DUE_INDEX = "due_by_next_run"


def due(schedule: str, now: str, limit: int) -> list[tuple[str, int]]:
    """(account, audit id) of up to `limit` audits of the schedule due at `now`, oldest
    due first: ids for the scheduler, which reads each audit with `get` (scoped)."""
    answer = client("dynamodb").query(
        TableName=settings().audits_table,
        IndexName=DUE_INDEX,
        KeyConditionExpression="schedule_due = :schedule AND next_run_at <= :now",
        ExpressionAttributeValues={":schedule": {"S": schedule}, ":now": {"S": now}},
        Limit=limit,
    )
    return [(item["account"]["S"], int(item["id"]["N"])) for item in answer["Items"]]


# -- a run's crawl ----------------------------------------------------------------------


def crawl_key(account: str, audit_id: int, run: int) -> str:
    return f"{account}#{audit_id}#{run}"


def item_key(crawl: str, key: str) -> dict[str, Any]:
    """The key of an item of a run's partition (`#state`, `page#<url>`, `issue#<code>`)."""
    return {"crawl": {"S": crawl}, "key": {"S": key}}


def start(crawl: str, fields: Item) -> None:
    """Write a run's state item (once: a redelivered start finds it there)."""
    try:
        client("dynamodb").put_item(
            TableName=settings().audit_crawls_table,
            Item=to_item({"crawl": crawl, "key": STATE, **fields}),
            ConditionExpression="attribute_not_exists(crawl)",
        )
    except client("dynamodb").exceptions.ConditionalCheckFailedException:
        pass


def state(crawl: str) -> Item | None:
    answer = client("dynamodb").get_item(
        TableName=settings().audit_crawls_table, Key=item_key(crawl, STATE), ConsistentRead=True
    )
    return from_item(answer["Item"]) if "Item" in answer else None


def set_state(
    crawl: str, only_if_status: tuple[str, ...] = (), only_once: str | None = None, **fields: Any
) -> bool:
    """Set fields of the run's state; with `only_if_status`, only while its status is one
    of those; with `only_once`, only while the state has no field of that name. Whether it
    was set."""
    fields = {**fields, "progressed_at": clock.now_iso()}
    names = {f"#f{n}": name for n, name in enumerate(fields)}
    values = {f":v{n}": to_attr(value) for n, value in enumerate(fields.values())}
    request: dict[str, Any] = {
        "TableName": settings().audit_crawls_table,
        "Key": item_key(crawl, STATE),
        "UpdateExpression": "SET " + ", ".join(f"#f{n} = :v{n}" for n in range(len(fields))),
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
    }
    if only_if_status:
        names["#status"] = "status"
        allowed = [f":s{n}" for n in range(len(only_if_status))]
        values.update({a: to_attr(s) for a, s in zip(allowed, only_if_status, strict=True)})
        request["ConditionExpression"] = f"#status IN ({', '.join(allowed)})"
    if only_once:
        names["#once"] = only_once
        unset = "attribute_not_exists(#once)"
        current = request.get("ConditionExpression")
        request["ConditionExpression"] = f"{current} AND {unset}" if current else unset
    try:
        client("dynamodb").update_item(**request)
    except client("dynamodb").exceptions.ConditionalCheckFailedException:
        return False
    return True


def count(crawl: str, ending: str | None = None, **deltas: int) -> Item | None:
    """Add to the run's counters atomically, as a step ends (its `progressed_at` now);
    their values after the addition. With `ending`, only while the state has that field,
    removed in the same write, so a step that runs again is counted once: None when it
    was counted before."""
    names = {f"#c{n}": name for n, name in enumerate(deltas)}
    values = {f":d{n}": {"N": str(delta)} for n, delta in enumerate(deltas.values())}
    request: dict[str, Any] = {
        "TableName": settings().audit_crawls_table,
        "Key": item_key(crawl, STATE),
        "UpdateExpression": "SET progressed_at = :now ADD "
        + ", ".join(f"#c{n} :d{n}" for n in range(len(deltas))),
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": {**values, ":now": {"S": clock.now_iso()}},
        "ReturnValues": "ALL_NEW",
    }
    if ending:
        names["#ending"] = ending
        request["UpdateExpression"] += " REMOVE #ending"
        request["ConditionExpression"] = "attribute_exists(#ending)"
    try:
        answer = client("dynamodb").update_item(**request)
    except client("dynamodb").exceptions.ConditionalCheckFailedException:
        return None
    return from_item(answer["Attributes"])


def _items(crawl: str, prefix: str, after: str | None, limit: int) -> tuple[list[Item], str | None]:
    request: dict[str, Any] = {
        "TableName": settings().audit_crawls_table,
        "KeyConditionExpression": "crawl = :crawl AND begins_with(#key, :prefix)",
        "ExpressionAttributeNames": {"#key": "key"},
        "ExpressionAttributeValues": {":crawl": {"S": crawl}, ":prefix": {"S": prefix}},
        "Limit": limit,
    }
    if after is not None:
        request["ExclusiveStartKey"] = item_key(crawl, after)
    answer = client("dynamodb").query(**request)
    found = [from_item(item) for item in answer["Items"]]
    last = answer.get("LastEvaluatedKey")
    return found, (last["key"]["S"] if last else None)


def pages_after(crawl: str, after: str | None, limit: int) -> tuple[list[Item], str | None]:
    """Up to `limit` pages of the run in URL order after the key `after`; and the key to
    continue from (None at the end)."""
    return _items(crawl, PAGE, after, limit)


def pages_of(crawl: str, urls: list[str]) -> dict[str, Item]:
    """The run's pages with these URLs, by URL (a URL without a page left out): one
    BatchGetItem a hundred."""
    keys = [item_key(crawl, PAGE + url) for url in dict.fromkeys(urls)]
    found = batches.get(settings().audit_crawls_table, keys)
    return {page["url"]: page for page in map(from_item, found)}


def every_page(crawl: str) -> Iterator[Item]:
    """Every page of the run, in URL order, a Query at a time."""
    after: str | None = None
    while True:
        found, after = _items(crawl, PAGE, after, _QUERY_LIMIT)
        yield from found
        if after is None:
            return


def save_issues(crawl: str, issues: list[Item], expires_at: int) -> None:
    """Store a run's issues, one item each (their affected pages as JSON);
    `batches.Unprocessed` when some could not be written (the analysis step fails, and
    comes again from its queue)."""
    entries = [
        {
            "PutRequest": {
                "Item": to_item(
                    {
                        "crawl": crawl,
                        "key": ISSUE + issue["code"],
                        **{
                            k: json.dumps(v) if isinstance(v, list | dict) else v
                            for k, v in issue.items()
                        },
                        "expires_at": expires_at,
                    }
                )
            }
        }
        for issue in issues
    ]
    batches.write(settings().audit_crawls_table, entries)


def issues(crawl: str) -> list[Item]:
    """Every issue of the run (at most one item per check: a few dozen)."""
    found: list[Item] = []
    after: str | None = None
    while True:
        chunk, after = _items(crawl, ISSUE, after, _QUERY_LIMIT)
        found.extend(chunk)
        if after is None:
            return found


# A run's cross-page checks, each URL they find, in items of at most AFFECTED_BYTES of URLs
# (`affected#<code>#<n>`): the next run's diff compares complete sets, where an issue's
# item lists at most a thousand pages. Few items: a 100,000-page site's check that lists
# every page is 20 of them.
AFFECTED = "affected#"
AFFECTED_BYTES = 300 * 1024


def save_affected(crawl: str, affected: dict[str, set[str]], expires_at: int) -> None:
    """Store every URL each cross-page check found on the run (one Put an item of URLs)."""
    table = settings().audit_crawls_table
    for code, urls in sorted(affected.items()):
        if not urls:
            continue
        chunk: list[str] = []
        size = part = 0
        for url in [*sorted(urls), None]:
            if url is None or (chunk and size + len(url) + 3 > AFFECTED_BYTES):
                item = {"crawl": crawl, "key": f"{AFFECTED}{code}#{part:05d}"}
                client("dynamodb").put_item(
                    TableName=table,
                    Item=to_item({**item, "urls": json.dumps(chunk), "expires_at": expires_at}),
                )
                chunk, size, part = [], 0, part + 1
            if url is not None:
                chunk.append(url)
                size += len(url) + 3


def affected(crawl: str) -> dict[str, set[str]]:
    """Every URL each cross-page check found on the run (`save_affected`)."""
    found: dict[str, set[str]] = {}
    after: str | None = None
    while True:
        chunk, after = _items(crawl, AFFECTED, after, 10)
        for item in chunk:
            code = item["key"].removeprefix(AFFECTED).rsplit("#", 1)[0]
            found.setdefault(code, set()).update(json.loads(item["urls"]))
        if after is None:
            return {code: urls for code, urls in found.items() if urls}


# -- the crawl's queue ------------------------------------------------------------------


def send(messages: list[Item]) -> None:
    """Queue crawl steps (`sitelens.audits.crawler`); `batches.Unprocessed` when some could
    not be queued (the step that sends them fails, and comes again from its queue)."""
    bodies = [json.dumps(m, separators=(",", ":")) for m in messages]
    batches.send(settings().audit_queue_url, bodies)
