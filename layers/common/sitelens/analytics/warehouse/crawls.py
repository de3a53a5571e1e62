"""The crawls table: one row per crawler's request read from a website's access logs
(`analytics.crawls.uploads`), its own per-site table beside the events, and the query API's
answers from it: metric `crawls`, dimensions `crawl:bot`, `crawl:family`,
`crawl:verification`, `crawl:status` and `event:page` (docs/crawlers.md).

Layout: `crawls/website_id=<id>/day=<YYYY-MM-DD>/upload-<digest>.parquet`, one file per
upload and day, named by the upload's digest, so an upload sent again replaces its own file.
Every row has a `line_id` (`uploads.line_id`) and `crawls` counts distinct ones, so a line
that reached two files (a log uploaded, then pulled from S3) still counts once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Final

from sitelens.analytics.warehouse import raw, schema
from sitelens.analytics.warehouse.schema import ColumnType
from sitelens.core import errors

FOLDER: Final = "crawls"
COLUMNS: Final[tuple[tuple[str, ColumnType], ...]] = (
    ("line_id", "string"),  # hash of website, the line's text and its occurrence (`uploads`)
    ("ts", "timestamp"),  # UTC
    ("page", "string"),  # path and query as requested
    ("status", "bigint"),  # the HTTP status answered
    ("bot", "string"),  # crawlers.json's name, or the maintained lists' (`crawlers`)
    ("family", "string"),  # search, ai-training, ai-assistant, seo-tool, other
    ("verification", "string"),  # verified, spoofed, unverified (`verification`)
)
DUCKDB_COLUMNS: Final = {name: schema.DUCKDB_TYPES[kind] for name, kind in COLUMNS}
METRIC: Final = "crawls"
DIMENSIONS: Final = {
    "crawl:bot": "bot",
    "crawl:family": "family",
    "crawl:verification": "verification",
    "crawl:status": "status",
    "event:page": "page",
}
PREFIX: Final = "crawl:"
MAX_LIMIT: Final = 10_000


def file_key(website_id: int, day: str, digest: str) -> str:
    """Where one upload's rows of one day go (relative to the warehouse's root)."""
    return f"{FOLDER}/website_id={int(website_id)}/day={day}/upload-{digest}.parquet"


def asked(body: Any) -> bool:
    """Whether a query body asks for crawls (its metric or a `crawl:` dimension)."""
    if not isinstance(body, dict):
        return False
    metrics, dimensions = body.get("metrics"), body.get("dimensions")
    named = [*(metrics if isinstance(metrics, list) else []), *(dimensions or [])]
    return any(
        isinstance(n, str) and (n == METRIC or n.startswith(PREFIX))
        for n in (named if isinstance(named, list) else [])
    )


@dataclass(frozen=True)
class CrawlQuery:
    site_ids: tuple[int, ...]
    start: datetime  # UTC, inclusive
    end: datetime  # UTC, exclusive
    first_day: date
    last_day: date
    dimensions: tuple[str, ...]
    filters: tuple[tuple[str, str, tuple[str, ...]], ...]  # (operator, dimension, values)
    limit: int


def check(body: dict[str, Any]) -> None:
    """422 for what a crawl query cannot have: another metric, a dimension not of crawls, a
    filter other than `is`/`is_not` on one of them, or `include`."""
    if body.get("metrics") != [METRIC]:
        raise errors.Invalid.field(
            "metrics", f"Crawls are queried alone: metrics must be [{METRIC!r}]."
        )
    dimensions = body.get("dimensions", [])
    if not isinstance(dimensions, list) or any(d not in DIMENSIONS for d in dimensions):
        raise errors.Invalid.field(
            "dimensions", f"With crawls, dimensions are among: {', '.join(DIMENSIONS)}."
        )
    if len(set(dimensions)) != len(dimensions):
        raise errors.Invalid.field("dimensions", "The dimensions field must not repeat a value.")
    sent = body.get("filters", [])
    for found in sent if isinstance(sent, list) else [sent]:
        ok = (
            isinstance(found, list)
            and len(found) == 3
            and found[0] in ("is", "is_not")
            and found[1] in DIMENSIONS
            and isinstance(found[2], list)
            and all(isinstance(v, str | int) and not isinstance(v, bool) for v in found[2])
        )
        if not ok:
            raise errors.Invalid.field(
                "filters", "With crawls, filters are [is|is_not, <crawl dimension>, [values]]."
            )
    if body.get("include") or body.get("order_by"):
        raise errors.Invalid.field("include", "Crawl queries take no include or order_by.")


def statement(query: CrawlQuery, dialect: str) -> str:
    """One row per group: the dimensions, then `crawls`, most first; then the total rows."""
    columns = [DIMENSIONS[d] for d in query.dimensions]
    first, last = query.first_day.toordinal(), query.last_day.toordinal()
    # a zone's day spans two UTC days: the partitions a day either side, then `ts`
    days = ", ".join(
        schema.literal(date.fromordinal(n).isoformat()) for n in range(first - 1, last + 2)
    )
    tests = [
        f"website_id IN ({', '.join(str(int(s)) for s in query.site_ids)})",
        f"day IN ({days})",
        f"ts >= TIMESTAMP {schema.literal(query.start.strftime('%Y-%m-%d %H:%M:%S'))}",
        f"ts < TIMESTAMP {schema.literal(query.end.strftime('%Y-%m-%d %H:%M:%S'))}",
    ]
    for operator, dimension, values in query.filters:
        column = DIMENSIONS[dimension]
        listed = ", ".join(
            str(int(v)) if column == "status" else schema.literal(str(v)) for v in values
        )
        tests.append(f"{column} {'NOT IN' if operator == 'is_not' else 'IN'} ({listed or 'NULL'})")
    keys = [f"d{n}" for n in range(len(columns))]
    selected = [*(f"{c} AS {k}" for c, k in zip(columns, keys, strict=True)), "COUNT(*) AS m0"]
    group = f"GROUP BY {', '.join(columns)}" if columns else ""
    order = ", ".join(["m0 DESC", *(f"{k} ASC" for k in keys)])
    # values are quoted by `schema.literal` or are numbers; names are this module's
    text = f"""
WITH lines AS (
  SELECT line_id, MIN(ts) AS ts, MIN(page) AS page, MIN(status) AS status, MIN(bot) AS bot,
    MIN(family) AS family, MIN(verification) AS verification
  FROM {FOLDER} WHERE {" AND ".join(tests[:2])} GROUP BY line_id
)
SELECT {", ".join([*selected, "COUNT(*) OVER () AS total_rows"])}
FROM lines WHERE {" AND ".join(tests[2:])}
{group}
ORDER BY {order}
LIMIT {query.limit}"""  # noqa: S608 (see above)
    return raw.rendered(text, dialect)
