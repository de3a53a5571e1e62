"""Statistics counters and the registries of their distinct values.

Items of the stats table, by `series` (partition) and `slot` (sort key):

- counter: `<website id>#<stat name>`, `<YYYY-MM-DD>#<value key>`; `count` is the sum, and
  `value` holds the value in full when the slot holds only a prefix of it (long values).
  One stats page is one Query on a series between two days.
- registry: `<website id>#<stat name>`, `values#<YYYY-MM-DD>`; the digests of the values
  that have a counter of their own that day (`digests`), and their length in bytes
  (`bytes`). It sorts after every day, so stats Queries never read it.
- month roll-up: `<website id>#<stat name>@month`, `<YYYY-MM>#<value key>`, put whole by
  the daily roll-up job (`data.months`) from the month's daily counters; its
  `pageviews@month` counter also holds the roll-up's state (CHANGED, ROLLED).

The same table holds the aggregator's delivery ledger (`ledger`), and the progress of
removing a deleted website's statistics (`cleanups`); `add_chunk` writes a chunk's commit
marker with its counters.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sitelens.core import scopes
from sitelens.core.config import settings
from sitelens.data import batches, clickhouse_counts, transactions
from sitelens.data.clients import client
from sitelens.data.items import cancel_reasons, is_condition_failure

# Sort keys are limited to 1,024 bytes: values up to STAT_VALUE_BYTES are their own key;
# longer ones are keyed by a prefix and a hash of the whole value, which makes their keys
# longer than any plain key, so two values never share one.
STAT_VALUE_BYTES = 900
# A transaction holds at most 100 actions: the counters of a chunk and its commit marker.
CHUNK_COUNTERS = 99
_TRANSACTION_ATTEMPTS = 5  # at most 0.3 s of backoff in all, well within a 30 s invocation
# Cancellation reasons that a later attempt of the same transaction can get past.
_TRANSIENT = {"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"}

# A month's roll-up is `pageviews@month`'s counter, with CHANGED: how many chunks added to
# the month's days after it closed (`add_chunk`), and ROLLED: how many the roll-up saw.
MONTH_TOTAL = "pageviews@month"
CHANGED, ROLLED = "changed", "rolled"

Group = tuple[int, str, str]  # website id, stat name, day
Count = tuple[int, str, str, str, int]  # website id, stat name, day, value, how much to add


def _stats_table() -> str:
    return settings().stats_table


def digest(text: str) -> bytes:
    """8 bytes standing for a value or a hit id: a collision within one day's values or
    one bucket's hits is a 1 in 2^64 chance per pair."""
    return hashlib.blake2b(text.encode(), digest_size=8).digest()


def _value_key(value: str) -> str:
    raw = value.encode()
    if len(raw) <= STAT_VALUE_BYTES:
        return value
    prefix = raw[:STAT_VALUE_BYTES].decode(errors="ignore")  # whole characters only
    return f"{prefix}#{hashlib.sha256(raw).hexdigest()[:32]}"


def slot(day: str, value: str) -> str:
    """The sort key of a counter: its day, then its value (or the value's long-value key)."""
    return f"{day}#{_value_key(value)}"


def counter_key(website_id: int, name: str, day: str, value: str) -> dict[str, Any]:
    """The key of a counter (of a day, or of a month in a month roll-up)."""
    return {"series": {"S": f"{website_id}#{name}"}, "slot": {"S": slot(day, value)}}


def counter_item(website_id: int, name: str, period: str, value: str, count: int) -> dict[str, Any]:
    """A whole counter item, as `add_chunk` leaves it (a month roll-up is put whole)."""
    item = {**counter_key(website_id, name, period, value), "count": {"N": str(count)}}
    if _value_key(value) != value:
        item["value"] = {"S": value}
    return item


# -- counting --------------------------------------------------------------------------------


def mark_committed(batch: str, chunk: int, expires_at: int) -> None:
    """Mark (batch, chunk) committed alone: its counts went elsewhere first (ClickHouse,
    `clickhouse_counts`); marking it again is harmless."""
    client("dynamodb").put_item(
        TableName=_stats_table(),
        Item={
            "series": {"S": f"commit#{batch}"},
            "slot": {"S": str(chunk)},
            "expires_at": {"N": str(expires_at)},
        },
    )


def add_chunk(
    batch: str,
    chunk: int,
    counts: list[Count],
    expires_at: int,
    closed: Sequence[tuple[int, str]] = (),
) -> bool:
    """Add a chunk of counts and mark (batch, chunk) committed, in one transaction: both
    land or neither; with them, each `closed` (website id, month) gets its month's roll-up
    marked changed (`_mark_changed`). At most CHUNK_COUNTERS counts and marks. False
    if the chunk had been committed already (an SDK retry of a transaction that landed
    although its answer was lost)."""
    if len(counts) + len(closed) > CHUNK_COUNTERS:
        raise ValueError(f"a chunk holds at most {CHUNK_COUNTERS} counters and marks")
    actions: list[dict[str, Any]] = [_counter_update(*count) for count in counts]
    actions += [_mark_changed(website_id, month) for website_id, month in closed]
    actions.append(
        {
            "Put": {
                "TableName": _stats_table(),
                "Item": {
                    "series": {"S": f"commit#{batch}"},
                    "slot": {"S": str(chunk)},
                    "expires_at": {"N": str(expires_at)},
                },
                "ConditionExpression": "attribute_not_exists(#series)",
                "ExpressionAttributeNames": {"#series": "series"},
            }
        }
    )
    failure: Exception = transactions.Contended()
    for _ in transactions.attempts(_TRANSACTION_ATTEMPTS):
        try:
            client("dynamodb").transact_write_items(TransactItems=actions)
            return True
        except Exception as err:
            reasons = cancel_reasons(err)
            if reasons and reasons[-1] == "ConditionalCheckFailed":
                return False
            # Concurrent batches add to the same counters (today's pageviews): a conflict
            # cancels one transaction, which then runs again.
            if not _TRANSIENT & set(reasons):
                raise
            failure = err
    raise failure


def _mark_changed(website_id: int, month: str) -> dict[str, Any]:
    """The update that tells a closed month's roll-up its days changed (`data.months`)."""
    return {
        "Update": {
            "TableName": _stats_table(),
            "Key": counter_key(website_id, MONTH_TOTAL, month, month),
            "UpdateExpression": "ADD #changed :one",
            "ExpressionAttributeNames": {"#changed": CHANGED},
            "ExpressionAttributeValues": {":one": {"N": "1"}},
        }
    }


def _counter_update(website_id: int, name: str, day: str, value: str, count: int) -> dict[str, Any]:
    update: dict[str, Any] = {
        "TableName": _stats_table(),
        "Key": counter_key(website_id, name, day, value),
        "UpdateExpression": "ADD #count :n",
        "ExpressionAttributeNames": {"#count": "count"},
        "ExpressionAttributeValues": {":n": {"N": str(count)}},
    }
    if _value_key(value) != value:  # the slot holds a prefix: keep the whole value too
        update["UpdateExpression"] += " SET #value = :value"
        update["ExpressionAttributeNames"]["#value"] = "value"
        update["ExpressionAttributeValues"][":value"] = {"S": value}
    return {"Update": update}


# -- distinct values -------------------------------------------------------------------------


@dataclass(frozen=True)
class Registry:
    """The values of one website, stat and day that have a counter of their own."""

    digests: frozenset[bytes] = frozenset()
    size: int = 0  # the values' length in bytes, summed


def _registry_key(group: Group) -> dict[str, Any]:
    website_id, name, day = group
    return {"series": {"S": f"{website_id}#{name}"}, "slot": {"S": f"values#{day}"}}


def registries(groups: list[Group]) -> dict[Group, Registry]:
    """The registry of each group (empty when it has none); strongly consistent reads
    (`batches.get`: `batches.Unprocessed` when some could not be read)."""
    by_key = {(f"{g[0]}#{g[1]}", f"values#{g[2]}"): g for g in groups}
    found = dict.fromkeys(groups, Registry())
    keys = [_registry_key(group) for group in dict.fromkeys(groups)]
    for item in batches.get(_stats_table(), keys, consistent=True):
        group = by_key[(item["series"]["S"], item["slot"]["S"])]
        found[group] = Registry(
            frozenset(item.get("digests", {}).get("BS", [])),
            int(item.get("bytes", {}).get("N", "0")),
        )
    return found


def register(group: Group, digests: set[bytes], size: int, max_values: int, max_bytes: int) -> bool:
    """Add values (their digests, and `size`, their bytes) to a group's registry unless it
    would then hold more than `max_values` values or `max_bytes` bytes; False if it would.

    The condition is checked against the stored registry, so concurrent batches can never
    take it past either limit between them."""
    try:
        client("dynamodb").update_item(
            TableName=_stats_table(),
            Key=_registry_key(group),
            UpdateExpression="ADD #digests :digests, #bytes :bytes",
            ConditionExpression="attribute_not_exists(#digests) OR "
            "(size(#digests) <= :values_before AND #bytes <= :bytes_before)",
            ExpressionAttributeNames={"#digests": "digests", "#bytes": "bytes"},
            ExpressionAttributeValues={
                ":digests": {"BS": sorted(digests)},
                ":bytes": {"N": str(size)},
                ":values_before": {"N": str(max_values - len(digests))},
                ":bytes_before": {"N": str(max_bytes - size)},
            },
        )
    except Exception as err:
        if is_condition_failure(err):
            return False
        raise
    return True


# -- reading ---------------------------------------------------------------------------------

# Queries of one request run at once: botocore keeps 10 connections per client.
READERS = 8


@dataclass(frozen=True)
class Span:
    """One series from period `first` to `last`, both included: days (`YYYY-MM-DD`) of a
    daily series, or months (`YYYY-MM`) of a month roll-up (`<stat>@month`)."""

    website_id: int
    name: str
    first: str
    last: str


def counts(
    website_id: int, name: str, first_day: str, last_day: str
) -> tuple[list[tuple[str, int]], dict[str, int]]:
    """(value, count) of every counter of a series from `first_day` to `last_day`, and
    what reading them cost: one Query, continued only past DynamoDB's 1 MB pages."""
    found, cost = daily_counts(website_id, name, first_day, last_day)
    return [(value, count) for _, value, count in found], cost


def daily_counts(
    website_id: int, name: str, first_day: str, last_day: str
) -> tuple[list[tuple[str, str, int]], dict[str, int]]:
    """(period, value, count) of every counter of a series from `first_day` to `last_day`
    (or from month to month of a month roll-up), and what reading them cost."""
    return span_counts(Span(website_id, name, first_day, last_day))


def span_counts(
    span: Span, consistent: bool = False
) -> tuple[list[tuple[str, str, int]], dict[str, int]]:
    """(period, value, count) of every counter of a span, and what reading them cost: one
    Query, continued only past DynamoDB's 1 MB pages. An item without a count (a month
    marked changed before its first roll-up, `months`) is no counter. A website counted in
    ClickHouse (`clickhouse_counts`) adds the daily counts there: a hit is counted in one
    store or the other (those before the website was listed, here), and the month
    roll-ups are made from both."""
    found, cost = _dynamodb_counts(span, consistent)
    if clickhouse_counts.counted(span.website_id) and len(span.first) == len("YYYY-MM-DD"):
        totals: Counter[tuple[str, str]] = Counter()
        for period, value, count in found:
            totals[(period, value)] += count
        for period, value, count in clickhouse_counts.span_counts(
            span.website_id, span.name, span.first, span.last
        ):
            totals[(period, value)] += count
        found = [(period, value, count) for (period, value), count in sorted(totals.items())]
        cost = {**cost, "requests": cost["requests"] + 1}
    return found, cost


def _dynamodb_counts(
    span: Span, consistent: bool
) -> tuple[list[tuple[str, str, int]], dict[str, int]]:
    query: dict[str, Any] = {
        "TableName": _stats_table(),
        "ConsistentRead": consistent,
        # `$` follows `#`: every slot of the last period sorts before `<last period>$`.
        "KeyConditionExpression": "#series = :series AND #slot BETWEEN :first AND :last",
        "ProjectionExpression": "#slot, #value, #count",
        "ExpressionAttributeNames": {
            "#series": "series",
            "#slot": "slot",
            "#value": "value",
            "#count": "count",
        },
        "ExpressionAttributeValues": {
            ":series": {"S": f"{span.website_id}#{span.name}"},
            ":first": {"S": f"{span.first}#"},
            ":last": {"S": f"{span.last}$"},
        },
    }
    length = len(span.first)
    found: list[tuple[str, str, int]] = []
    cost = {"requests": 0, "items_read": 0}
    while True:
        answer = client("dynamodb").query(**query)
        cost["requests"] += 1
        cost["items_read"] += answer.get("ScannedCount", 0)
        found.extend(
            (item["slot"]["S"][:length], _value(item, length), int(item["count"]["N"]))
            for item in answer["Items"]
            if "count" in item
        )
        if "LastEvaluatedKey" not in answer:
            return found, cost
        query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


def many_counts(
    spans: list[Span], consistent: bool = False
) -> tuple[list[list[tuple[str, str, int]]], dict[str, int]]:
    """`span_counts` of each span, in order, up to READERS Queries at once; and what
    reading them all cost."""
    client("dynamodb")  # created here, once, before the threads share it

    def read(span: Span) -> tuple[list[tuple[str, str, int]], dict[str, int]]:
        return span_counts(span, consistent)

    if len(spans) <= 1:
        answers = [read(span) for span in spans]
    else:
        with scopes.ThreadPool(max_workers=min(READERS, len(spans))) as pool:
            answers = list(pool.map(read, spans))
    cost = {"requests": 0, "items_read": 0}
    for _, spent in answers:
        cost["requests"] += spent["requests"]
        cost["items_read"] += spent["items_read"]
    return [found for found, _ in answers], cost


def _value(item: dict[str, Any], period_length: int) -> str:
    if "value" in item:
        return str(item["value"]["S"])
    return str(item["slot"]["S"][period_length + 1 :])


# -- writing in batches ----------------------------------------------------------------------


def write_batch(requests: list[dict[str, Any]]) -> None:
    """Puts and deletes on the stats table (`batches.write`: `batches.Unprocessed` when some
    could not be applied)."""
    batches.write(_stats_table(), requests)
