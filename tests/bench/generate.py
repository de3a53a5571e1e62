"""A warehouse to query: one large site beside many small ones, in the deployed layout.

    python -m tests.bench.generate build/bench-warehouse            # 10M + 100 sites
    python -m tests.bench.generate /tmp/w --events 100000 --sites 5 --days 3

Rows have the columns of `schema.COLUMNS` and a `hit_id` (a UUIDv7 string), as
`rows.row(hit)` makes them. For speed, the compacted layout
(`events/website_id=<id>/day=<YYYY-MM-DD>/data.parquet`, sorted by ts) is written
directly by DuckDB from generated SQL rows, a day at a time (memory stays flat); only the
last `LANDING_HOURS` hours go through `LocalWarehouse.write` as dicts into the landing
layout (with some rows sent twice, as redeliveries would), `compact()` splits them into
parts and `merge()` folds these into the same partitions, deduplicating by hit_id.

The traffic: visits of 1 to 8 pageviews (45% bounce), an engagement row after 85% of
pageviews and a custom event after 5%; referrers, sources, campaigns, pages (log-uniform
over 2,000), browsers, devices, countries (DE about a quarter) and screens drawn from fixed
lists by hashes of the visit, so a run is reproducible. Small sites' sizes fall off as
1/rank. Visitor hashes change daily (as the salt does).
"""

from __future__ import annotations

import argparse
import shutil
import time
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from sitelens.analytics import sources
from sitelens.analytics.warehouse import schema, summaries

EVENTS = 10_000_000  # the large site's rows over the period
SMALL_SITES = 100
SMALL_EVENTS = 1_000_000  # all small sites together
DAYS = 30
END = date(2026, 11, 23)  # the first day after the period
BIG_SITE = 1
LANDING_HOURS = 2  # the period's last hours arrive through the landing layout
DUPLICATE_SHARE = 0.01  # of landing rows, sent twice
# pageviews, engagements, events (see below), less what spills past midnight (measured)
ROWS_PER_VISIT = 2.3 * (1 + 0.85 + 0.05) * 0.967
MEMORY_LIMIT = "700MB"  # DuckDB's buffer manager; `make bench` stays under 2 GiB

_LINKS = [f"blog{n}.example.org/post-{n}" for n in range(1, 9)]
# repeated by weight: direct 39%, search 35%, social 13%, links 13%
REFERRERS = [
    *[""] * 24,
    *["google.com"] * 14,
    *["bing.com"] * 3,
    *["duckduckgo.com"] * 2,
    "ecosia.org",
    "search.brave.com",
    *["t.co", "facebook.com", "reddit.com"] * 2,
    "linkedin.com",
    "news.ycombinator.com",
    "chatgpt.com",
    *_LINKS,
]
# browser, os, device; repeated by weight
CLIENTS = [
    *[("Chrome", "Windows", "desktop")] * 6,
    *[("Safari", "iOS", "mobile")] * 4,
    *[("Chrome", "Android", "mobile")] * 4,
    *[("Safari", "Mac", "desktop")] * 2,
    ("Edge", "Windows", "desktop"),
    ("Firefox", "Windows", "desktop"),
    ("Samsung Internet", "Android", "mobile"),
    ("Safari", "iOS", "tablet"),
    ("Firefox", "GNU/Linux", "desktop"),
]
# country, language; repeated by weight
PLACES = [
    *[("DE", "de-DE")] * 6,
    *[("US", "en-US")] * 3,
    *[("GB", "en-GB")] * 2,
    ("AT", "de-AT"),
    ("CH", "de-CH"),
    ("FR", "fr-FR"),
    ("NL", "nl-NL"),
    ("PL", "pl-PL"),
    ("IT", "it-IT"),
    ("ES", "es-ES"),
    ("SE", "sv-SE"),
    ("IN", "en-IN"),
    ("BR", "pt-BR"),
    ("JP", "ja-JP"),
    ("CA", "en-CA"),
]
SCREENS = ["1920x1080", "1536x864", "1440x900", "390x844", "412x915", "2560x1440", "768x1024"]
SECTIONS = ["blog", "docs", "products", "guides", "help", "pricing", "about", "careers"]
PAGES = 2_000


@dataclass
class Summary:
    root: str
    events: dict[str, int] = field(default_factory=dict)  # rows by site, after compaction
    days: int = DAYS
    first_day: str = ""
    last_day: str = ""
    landing_rows: int = 0
    merged_rows: int = 0  # rows of the partitions compaction rewrote (the last day's)
    landing_duplicates: int = 0
    compacted: bool = False
    files: int = 0
    bytes: int = 0
    seconds: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _list(values: list[Any]) -> str:
    def quoted(value: Any) -> str:
        if isinstance(value, tuple):
            return "[" + ", ".join(quoted(v) for v in value) + "]"
        return "'" + str(value).replace("'", "''") + "'"

    return "[" + ", ".join(quoted(v) for v in values) + "]"


def _pick(values: list[Any], u: str) -> str:
    """An element of a SQL list by a uniform draw `u` in [0, 1)."""
    return f"{_list(values)}[1 + CAST(FLOOR({u} * {len(values)}) AS INTEGER)]"


def _uniform(*parts: str) -> str:
    return f"((hash({', '.join(parts)}) % 1000003) / 1000003.0)"


def day_sql(day: date, visits: int, sites: str) -> str:
    """A day's rows (every column, `hit_id`, `website_id`, `day`) for `visits` visits;
    `sites` is the SQL of a visit's website id (over `v`, the visit number)."""
    salt = day.toordinal()
    start = datetime(day.year, day.month, day.day).strftime("%Y-%m-%d %H:%M:%S")
    referrers = [(r, sources.source(r)) for r in REFERRERS]
    u = lambda k: _uniform("v", str(salt), str(k))  # noqa: E731 - a draw per visit
    w = lambda k: _uniform("v", "n", str(salt), str(k))  # noqa: E731 - a draw per page
    rows = f"""
WITH visits AS (
  SELECT v, {sites} AS website_id,
    printf('%016x', hash({salt}, CAST(v / 1.25 AS BIGINT))) AS visitor,
    TIMESTAMP '{start}' + to_microseconds(CAST({u(1)} * 86400e6 AS BIGINT)) AS begins,
    CASE WHEN {u(2)} < 0.45 THEN 1 WHEN {u(2)} < 0.70 THEN 2 WHEN {u(2)} < 0.85 THEN 3
      WHEN {u(2)} < 0.95 THEN 5 ELSE 8 END AS pages,
    {_pick(referrers, u(3))} AS came,
    CASE WHEN {u(4)} < 0.05 THEN 'spring-' || CAST(CAST({u(5)} * 3 AS INTEGER) AS VARCHAR)
      ELSE '' END AS campaign,
    {_pick(CLIENTS, u(6))} AS client,
    {_pick(PLACES, u(7))} AS place,
    {_pick(SCREENS, u(8))} AS screen
  FROM range({visits}) AS t(v)
),
views AS (
  SELECT *,
    begins + to_microseconds(CAST(n * 90e6 + {w(1)} * 60e6 AS BIGINT)) AS viewed,
    CASE WHEN n = 0 AND {u(9)} < 0.15 THEN '/'
      ELSE '/' || {_pick(SECTIONS, w(2))} || '/item-'
        || CAST(CAST(FLOOR(EXP({w(3)} * LN({PAGES}))) AS BIGINT) AS VARCHAR) END AS page,
    {w(4)} AS engaged, {w(5)} AS evented
  FROM visits, range(pages) AS p(n)
),
hits AS (
  SELECT *, 'pageview' AS name, viewed AS ts, 0 AS engagement_ms, FALSE AS interactive,
    '' AS event_value, '' AS event_unit FROM views
  UNION ALL
  SELECT *, 'engagement', viewed + to_microseconds(CAST(engaged * 80e6 AS BIGINT)),
    CAST(engaged * 80000 AS BIGINT), FALSE, '', '' FROM views WHERE engaged < 0.85
  UNION ALL
  SELECT *, CASE WHEN evented < 0.03 THEN 'signup' ELSE 'purchase' END,
    viewed + INTERVAL 5 SECOND, 0, TRUE,
    CASE WHEN evented < 0.03 THEN '' ELSE CAST(CAST(evented * 2000 AS INTEGER) AS VARCHAR) END,
    CASE WHEN evented < 0.03 THEN '' ELSE 'EUR' END
  FROM views WHERE evented < 0.05
)
SELECT
  CAST(date_trunc('millisecond', ts) AS TIMESTAMP) AS ts,
  visitor, name, page,
  CASE WHEN n = 0 THEN came[1] ELSE '' END AS referrer,
  CASE WHEN n = 0 THEN came[2] ELSE '' END AS source,
  CASE WHEN campaign <> '' AND n = 0 THEN 'newsletter' ELSE '' END AS utm_source,
  CASE WHEN campaign <> '' AND n = 0 THEN 'email' ELSE '' END AS utm_medium,
  CASE WHEN n = 0 THEN campaign ELSE '' END AS utm_campaign,
  '' AS utm_term, '' AS utm_content,
  client[1] AS browser, client[2] AS os, client[3] AS device,
  place[1] AS country, place[2] AS language, screen,
  event_value, event_unit, engagement_ms, interactive,
  CAST(NULL AS VARCHAR) AS props, CAST(NULL AS VARCHAR) AS revenue_amount,
  CAST(NULL AS VARCHAR) AS revenue_currency, CAST(NULL AS BIGINT) AS scroll_depth,
  CAST(NULL AS BIGINT) AS vital_lcp, CAST(NULL AS BIGINT) AS vital_inp,
  CAST(NULL AS BIGINT) AS vital_cls, CAST(NULL AS BIGINT) AS vital_fcp,
  CAST(NULL AS BIGINT) AS vital_ttfb,
  lower(printf('%012x', epoch_ms(ts))) AS t,
  printf('%016x', hash(v, name, ts)) || printf('%016x', hash(ts, v)) AS r,
  website_id, strftime(ts, '%Y-%m-%d') AS day
FROM hits
WHERE ts < TIMESTAMP '{start}' + INTERVAL 1 DAY
"""
    # a UUIDv7 (8-4-4-4-12, version 7, variant 8): the millisecond, then hashes
    # (deterministic, unlike uuidv7())
    hit_id = (
        "substr(t, 1, 8) || '-' || substr(t, 9, 4) || '-7' || substr(r, 1, 3) || '-8' "
        "|| substr(r, 4, 3) || '-' || substr(r, 7, 12)"
    )
    return f"SELECT * EXCLUDE (t, r), {hit_id} AS hit_id FROM ({rows})"


# the files' columns, hit_id among them (appended while the schema does not name it yet)
_ROW_COLUMNS = ", ".join(dict.fromkeys((*schema.COLUMN_NAMES, "hit_id")))


def _connection() -> Any:
    import duckdb

    connection = duckdb.connect(":memory:")
    connection.execute("SET TimeZone = 'UTC'")
    connection.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
    connection.execute("SET preserve_insertion_order = true")
    return connection


def _visits(rows: float) -> int:
    return max(1, round(rows / ROWS_PER_VISIT))


def _summarise(connection: Any, root: Path) -> None:
    """Each written site-day's summaries, as compaction writes them beside its file."""
    files = sorted((root / "events").glob("website_id=*/day=*/data.parquet"))
    for day in sorted({path.parent.name for path in files}):  # a day at a time: memory stays flat
        written = summaries.write(
            connection, [path for path in files if path.parent.name == day], root / "summaries"
        )
        for target, path in written.items():
            (root / target).parent.mkdir(parents=True, exist_ok=True)
            path.rename(root / target)
    shutil.rmtree(root / "summaries", ignore_errors=True)


def generate(
    root: Path,
    events: int = EVENTS,
    small_sites: int = SMALL_SITES,
    small_events: int = SMALL_EVENTS,
    days: int = DAYS,
    end: date = END,
    direct: bool = False,
) -> Summary:
    """Write the warehouse under `root` (emptied first) and compact it; with `direct`, every
    row straight into the compacted files, with no landing, compaction nor summaries (all
    that ClickHouse reads: `make bench-large`)."""
    from sitelens.local.warehouse import LocalWarehouse

    started = time.perf_counter()
    if root.exists():
        shutil.rmtree(root)
    (root / "events").mkdir(parents=True)
    connection = _connection()
    first = end - timedelta(days=days)
    summary = Summary(str(root), days=days, first_day=first.isoformat())
    summary.last_day = (end - timedelta(days=1)).isoformat()
    landing_from = datetime(end.year, end.month, end.day) - timedelta(hours=LANDING_HOURS)
    store = LocalWarehouse(root)
    can_compact = hasattr(store, "compact") and not direct
    # small sites: site 2 + k for a log-uniform k, so sizes fall off as 1/rank
    small = f"2 + CAST(FLOOR(EXP({_uniform('v', '7')} * LN({small_sites + 1}))) AS BIGINT) - 1"
    staged = root / "staged"
    landing: list[dict[str, Any]] = []
    for number in range(days):
        day = first + timedelta(days=number)
        for part, (visits, sites) in enumerate(
            ((_visits(events / days), str(BIG_SITE)), (_visits(small_events / days), small))
        ):
            if part == 1 and not small_sites:
                continue
            generated = f"({day_sql(day, visits, sites)})"
            cut = f"ts < TIMESTAMP '{landing_from:%Y-%m-%d %H:%M:%S}'" if can_compact else "TRUE"
            body = f"SELECT {_ROW_COLUMNS}"
            if part == 0:  # one file, sorted by ts
                folder = root / "events" / f"website_id={BIG_SITE}" / f"day={day.isoformat()}"
                folder.mkdir(parents=True)
                connection.execute(
                    f"COPY ({body} FROM {generated} WHERE {cut} ORDER BY ts) "
                    f"TO '{folder / 'data.parquet'}' (FORMAT parquet)"
                )
            else:  # one file per site, one thread so each stays sorted, then moved in place
                connection.execute("SET threads = 1")
                connection.execute(
                    f"COPY ({body}, website_id, day FROM {generated} WHERE {cut} "
                    f"ORDER BY website_id, ts) TO '{staged}' (FORMAT parquet, "
                    "PARTITION_BY (website_id, day), OVERWRITE_OR_IGNORE, FILENAME_PATTERN 'data')"
                )
                connection.execute("RESET threads")
                for found in staged.glob("website_id=*/day=*/data*.parquet"):
                    target = root / "events" / found.parent.parent.name / found.parent.name
                    target.mkdir(parents=True)
                    found.rename(target / "data.parquet")
                shutil.rmtree(staged)
            if can_compact and day == end - timedelta(days=1):
                cursor = connection.execute(
                    f"SELECT {_ROW_COLUMNS}, website_id, day FROM {generated} WHERE NOT ({cut})"
                )
                names = [d[0] for d in cursor.description]
                landing += [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    summary.seconds["generate"] = round(time.perf_counter() - started, 1)
    if not direct:
        began = time.perf_counter()
        _summarise(connection, root)
        summary.seconds["summaries"] = round(time.perf_counter() - began, 1)
    if can_compact:
        again = landing[:: round(1 / DUPLICATE_SHARE)]  # redelivered: the same hit_id
        began = time.perf_counter()
        for start in range(0, len(landing), 20_000):  # flushes of a Firehose-like size
            store.write(landing[start : start + 20_000])
        store.write(again)
        summary.seconds["landing"] = round(time.perf_counter() - began, 1)
        summary.landing_rows, summary.landing_duplicates = len(landing), len(again)
        began = time.perf_counter()
        store.compact()  # the hourly level: landing into parts
        summary.seconds["compact"] = round(time.perf_counter() - began, 1)
        began = time.perf_counter()
        store.merge(end)  # the daily level, once the last day closed: parts into its files
        summary.seconds["merge"] = round(time.perf_counter() - began, 1)
        summary.compacted = True
    store.close()
    files = sorted((root / "events").glob("website_id=*/day=*/*.parquet"))
    summary.files = len(files)
    summary.bytes = sum(f.stat().st_size for f in files)
    # no copies to look for where nothing was compacted (`direct`): and 110M distinct hit
    # ids would not fit `MEMORY_LIMIT` (make bench-large at 100M ran out of memory here)
    distinct = "COUNT(DISTINCT hit_id)" if can_compact else "COUNT(*)"
    counted = connection.execute(
        f"SELECT website_id, COUNT(*), {distinct} FROM read_parquet("
        f"'{root}/events/*/*/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY 1"
    ).fetchall()
    summary.events = {str(site): rows for site, rows, _ in counted}
    if summary.compacted:
        summary.merged_rows = connection.execute(
            f"SELECT COUNT(*) FROM read_parquet('{root}/events/*/day={summary.last_day}/*.parquet')"
        ).fetchone()[0]
    connection.close()
    twice = sum(rows - distinct for _, rows, distinct in counted)
    assert twice == 0, f"{twice} rows share a hit_id after compaction"
    summary.seconds["total"] = round(time.perf_counter() - started, 1)
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--events", type=int, default=EVENTS)
    parser.add_argument("--sites", type=int, default=SMALL_SITES, help="small sites")
    parser.add_argument("--small-events", type=int, default=SMALL_EVENTS)
    parser.add_argument("--days", type=int, default=DAYS)
    args = parser.parse_args()
    summary = generate(args.root, args.events, args.sites, args.small_events, args.days)
    for name, value in summary.as_dict().items():
        print(f"{name}: {value}")


if __name__ == "__main__":
    main()
