"""Counters and presences in ClickHouse, for the websites that outgrow a DynamoDB partition
(`settings().clickhouse_counted_sites`, template parameter ClickHouseCountedSites; only
under WarehouseEngine=clickhouse).

A website's daily counters are items of one partition key each (`<website>#<stat>`), and a
partition takes about 1,000 writes a second: a site of billions of hits a month meets that
on its busiest counters. For the websites listed, the aggregator writes no counter item:
it inserts each counted hit, once, into `counted_hits` (`insert`), and two materialised
views fold every inserted block into what the readers read:

- `site_counts` (a `SummingMergeTree`): the same daily counters, (website, stat, day,
  value) and their sum, which `data.stats.span_counts` adds to DynamoDB's for those sites
  (the hits counted before the site was listed stay there; month roll-ups, made by the
  daily job from the days, hold both);
- `site_presences` (an `AggregatingMergeTree`, kept ten minutes): per site, minute and
  visitor digest, the latest page and the visit's source, which `data.realtime.since`
  reads for them.

Counted once. A view adds whatever block is inserted into `counted_hits`, so the insert
itself takes only the hits not in it yet: `INSERT ... SELECT ... WHERE (website, day, hit
id) NOT IN (the table's rows of the batch's sites and days)`. A batch retried after its
insert landed (its answer lost, the function killed before its commit mark) inserts
nothing the second time. Two batches never insert the same hit at once: the aggregator's
delivery records (`counting`, in DynamoDB, spread by hit time, not by site) hold a hit for
one running batch. `counted_hits` keeps a hit as long as a delivery of it may come back
(`HIT_RECORDS_KEPT_SECONDS`), and nothing that identifies a visitor: the daily-salted digest,
the page and the source, as the warehouse's rows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from sitelens.core.config import settings
from sitelens.data import clickhouse
from sitelens.data.queues import HIT_RECORDS_KEPT_SECONDS

HITS: Final = "counted_hits"
COUNTS: Final = "site_counts"
PRESENCES: Final = "site_presences"
PRESENCE_MINUTES: Final = 10  # as DynamoDB's presence items' TTL
# an insert's rows travel inside its statement: room for a batch of 10,000 hits
MAX_STATEMENT_BYTES: Final = 64 * 1024 * 1024

_COLUMNS: Final = (
    "website_id Int64, day String, hit_id String, at DateTime('UTC'), visitor String, "
    "page String, source String, counters Array(Tuple(String, String, String)), weight Int64"
)


@dataclass(frozen=True)
class CountedHit:
    """A counted hit as ClickHouse keeps it: its counters' (stat, value, period), and who
    it shows on the site now (`page` empty for an engagement: no one shown)."""

    website_id: int
    hit_id: str
    at: int  # Unix seconds
    visitor: str
    page: str
    source: str  # the visit's source on its landing, "" otherwise
    counters: tuple[tuple[str, str, str], ...]
    weight: int = 1


def counted(website_id: int) -> bool:
    """Whether the website's counters and presences are ClickHouse's."""
    return website_id in settings().clickhouse_counted_sites


def create_statements() -> list[str]:
    """The table of counted hits and the two views' tables, created where missing."""
    kept = HIT_RECORDS_KEPT_SECONDS
    return [
        f"""CREATE TABLE IF NOT EXISTS {HITS} (
  website_id Int64, day String, hit_id String, at DateTime('UTC'), visitor String,
  page String, source String, counters Array(Tuple(name String, value String, period String)),
  weight Int64
) ENGINE = ReplacingMergeTree ORDER BY (website_id, day, hit_id)
TTL at + INTERVAL {kept} SECOND""",
        f"""CREATE TABLE IF NOT EXISTS {COUNTS} (
  website_id Int64, name LowCardinality(String), period String, value String, count Int64
) ENGINE = SummingMergeTree ORDER BY (website_id, name, period, value)""",
        f"""CREATE MATERIALIZED VIEW IF NOT EXISTS {COUNTS}_view TO {COUNTS} AS
SELECT website_id, c.name AS name, c.period AS period, c.value AS value, weight AS count
FROM {HITS} ARRAY JOIN counters AS c""",  # noqa: S608 (names are ours)
        f"""CREATE TABLE IF NOT EXISTS {PRESENCES} (
  website_id Int64, minute Int64, visitor String,
  seen_at SimpleAggregateFunction(max, DateTime('UTC')),
  latest_page AggregateFunction(argMax, String, DateTime('UTC')),
  visit_source AggregateFunction(argMaxIf, String, DateTime('UTC'), UInt8)
) ENGINE = AggregatingMergeTree ORDER BY (website_id, minute, visitor)
TTL toDateTime(minute * 60) + INTERVAL {PRESENCE_MINUTES} MINUTE""",
        f"""CREATE MATERIALIZED VIEW IF NOT EXISTS {PRESENCES}_view TO {PRESENCES} AS
SELECT website_id, intDiv(toUnixTimestamp(at), 60) AS minute, visitor,
  max(at) AS seen_at, argMaxState(page, at) AS latest_page,
  argMaxIfState(source, at, source != '') AS visit_source
FROM {HITS} WHERE page != '' GROUP BY website_id, minute, visitor""",  # noqa: S608
    ]


def _literal(text: str) -> str:
    """A ClickHouse string literal of `text`."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def insert_statement(hits: Sequence[CountedHit]) -> str:
    """The insert of the hits `counted_hits` lacks (see the module's docstring)."""
    rows = "\n".join(
        json.dumps(
            [
                hit.website_id,
                _day(hit.at),
                hit.hit_id,
                hit.at,
                hit.visitor,
                hit.page,
                hit.source,
                [list(counter) for counter in hit.counters],
                hit.weight,
            ],
            ensure_ascii=False,
        )
        for hit in hits
    )
    sites = ", ".join(sorted({str(hit.website_id) for hit in hits}))
    days = ", ".join(_literal(day) for day in sorted({_day(hit.at) for hit in hits}))
    return f"""INSERT INTO {HITS}
SELECT * FROM format(JSONCompactEachRow, {_literal(_COLUMNS)}, {_literal(rows)}) AS batch
WHERE (batch.website_id, batch.day, batch.hit_id) NOT IN (
  SELECT website_id, day, hit_id FROM {HITS} WHERE website_id IN ({sites}) AND day IN ({days})
)"""  # noqa: S608 (numbers, and literals escaped by `_literal`)


_created: list[bool] = []  # the container made sure the tables exist


def _ensure_tables() -> None:
    """Create the tables once a container (the aggregator may count before the ingest's
    first run, which creates the warehouse's)."""
    if not _created:
        for statement in create_statements():
            clickhouse.command(statement)
        _created.append(True)


def insert(hits: Sequence[CountedHit]) -> None:
    """Insert the hits not counted yet; raises when the server refused the statement."""
    if hits:
        _ensure_tables()
        clickhouse.command(insert_statement(hits), {"max_query_size": MAX_STATEMENT_BYTES})


def _day(at: int) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d")


def span_counts(website_id: int, name: str, first: str, last: str) -> list[tuple[str, str, int]]:
    """(day, value, count) of a daily statistic's counters from day `first` to `last`."""
    _ensure_tables()
    rows = clickhouse.run(
        f"""SELECT period, value, toInt64(sum(count)) FROM {COUNTS}
WHERE website_id = {int(website_id)} AND name = {_literal(name)}
  AND period BETWEEN {_literal(first)} AND {_literal(last)}
GROUP BY period, value ORDER BY period, value""",  # noqa: S608 (a number and escaped literals)
        {},
    )
    return [(str(period), str(value), int(total)) for period, value, total in rows]


def presences(website_id: int, start: int) -> list[tuple[str, int, str, str]]:
    """(visitor, latest second, page, source) of each visitor and minute from `start`'s
    minute on."""
    _ensure_tables()
    rows = clickhouse.run(
        f"""SELECT visitor, toInt64(toUnixTimestamp(max(seen_at))), argMaxMerge(latest_page),
  argMaxIfMerge(visit_source)
FROM {PRESENCES} WHERE website_id = {int(website_id)} AND minute >= {int(start) // 60}
GROUP BY minute, visitor ORDER BY minute, visitor""",  # noqa: S608 (numbers)
        {},
    )
    return [(str(v), int(at), str(page), str(source)) for v, at, page, source in rows]
