"""The columns of a raw event row, in file order, and the partition keys; and `literal`,
how every statement writes a text value.

Every counted hit is one row: a pageview, a custom event, or an engagement (the page was
hidden or left; it carries the time spent on the page). Nothing in a row identifies a
person: `visitor` is a hash keyed by a salt that lives for one day (`visitors` module).
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

ColumnType: TypeAlias = Literal["timestamp", "string", "bigint", "boolean"]

PAGEVIEW: Final = "pageview"
ENGAGEMENT: Final = "engagement"  # time on page, sent when the page is hidden or left
# The two as SQL text literals (`literal`'s answer: plain words, nothing in them to quote)
PAGEVIEW_SQL: Final = f"'{PAGEVIEW}'"
ENGAGEMENT_SQL: Final = f"'{ENGAGEMENT}'"

# (name, type): the Parquet files' columns, the Glue table's, in this order
COLUMNS: Final[tuple[tuple[str, ColumnType], ...]] = (
    ("hit_id", "string"),  # the hit's UUIDv7: a row sent twice is one row (deduplicated)
    ("ts", "timestamp"),  # UTC, milliseconds
    ("visitor", "string"),  # daily-salted hash of website, address and user agent
    ("name", "string"),  # "pageview", "engagement" or a custom event's name
    ("page", "string"),  # path and query, click ids removed
    ("referrer", "string"),  # referring URL without scheme and "www." ("" when none)
    ("source", "string"),  # referrer grouped by name (search engines, social networks)
    ("utm_source", "string"),
    ("utm_medium", "string"),
    ("utm_campaign", "string"),
    ("utm_term", "string"),
    ("utm_content", "string"),
    ("browser", "string"),
    ("os", "string"),
    ("device", "string"),  # desktop, mobile, tablet, other
    ("country", "string"),  # ISO 3166-1 alpha-2
    ("language", "string"),
    ("screen", "string"),  # WIDTHxHEIGHT
    ("event_value", "string"),
    ("event_unit", "string"),
    ("engagement_ms", "bigint"),  # time on the page, for engagement rows; else 0
    ("interactive", "boolean"),  # a custom event (it keeps a visit from being a bounce)
    # added later (files written before lack them: read by name, missing is NULL)
    ("props", "string"),  # custom properties: JSON of a flat text map, NULL for none
    ("revenue_amount", "string"),  # a custom event's revenue, a decimal as text
    ("revenue_currency", "string"),  # ISO 4217: revenue stays in the currency it came in
    ("scroll_depth", "bigint"),  # engagement rows: the deepest percent seen, NULL unmeasured
    # Core Web Vitals, on a page view's first engagement (`analytics.vitals`); NULL unmeasured
    ("vital_lcp", "bigint"),  # ms
    ("vital_inp", "bigint"),  # ms
    ("vital_cls", "bigint"),  # thousandths
    ("vital_fcp", "bigint"),  # ms
    ("vital_ttfb", "bigint"),  # ms
)
# hive-style folders: website_id=12/day=2026-11-24/
PARTITIONS: Final[tuple[tuple[str, ColumnType], ...]] = (
    ("website_id", "bigint"),
    ("day", "string"),  # UTC day, YYYY-MM-DD
)
COLUMN_NAMES: Final = tuple(name for name, _ in COLUMNS)


def site_day(path: str) -> tuple[int, str]:
    """The partition of a key or path `.../website_id=<id>/day=<day>/<file>`."""
    _, site, day = str(path).split("/")[-4:-1]
    return int(site.split("=", 1)[1]), day.split("=", 1)[1]


# DuckDB's names of the column types
DUCKDB_TYPES: Final[dict[ColumnType, str]] = {
    "timestamp": "TIMESTAMP",
    "string": "VARCHAR",
    "bigint": "BIGINT",
    "boolean": "BOOLEAN",
}


def empty_relation(columns: tuple[tuple[str, ColumnType], ...]) -> str:
    """DuckDB's SELECT of no rows with these typed columns: `UNION ALL BY NAME` with it
    gives files written before a column existed that column, NULL."""
    typed = ", ".join(f"CAST(NULL AS {DUCKDB_TYPES[kind]}) AS {name}" for name, kind in columns)
    return f"SELECT {typed} WHERE FALSE"


def literal(value: str) -> str:
    """A text value as an SQL string literal, quoted by SQLGlot (the same in DuckDB's and
    Athena's SQL); one with a NUL, as literals joined by `|| CHR(0) ||`, in brackets."""
    # Imported here: only a statement for the warehouse quotes text, and the fast paths
    # answer most queries from the counters without one (SQLGlot takes 45 ms to import).
    from sqlglot import exp

    # NUL ends a literal in DuckDB's parser: it goes between the quoted parts as CHR(0)
    parts = [exp.Literal.string(part).sql(dialect="duckdb") for part in value.split("\0")]
    return parts[0] if len(parts) == 1 else f"({' || CHR(0) || '.join(parts)})"
