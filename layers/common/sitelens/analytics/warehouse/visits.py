"""What a visit is, in SQL: one home for the rule, used by queries over raw rows and by
compaction when it writes each site-day's visits (`summaries`).

A visitor's rows are ordered by time, and a pageview or custom event more than
`VISIT_GAP_MINUTES` after the previous row starts a new visit (engagement rows only extend
one). A visit's dimensions come from its first pageview, but for its location and device,
which all its rows share, taken from its first row (so a visit of custom events alone has
them too). Its duration runs from its first row to its last (an engagement row ends when
the page was left), and it bounces when it has one pageview and no custom event. Visits
are found within a UTC day's rows, so none crosses midnight UTC (a visitor hash ends at the
website's midnight anyway: for a website in UTC, the same moment); rows continuing the
previous day's visit (an engagement after midnight) count in no visit. That is why a whole
UTC day's visits, found once at compaction, are the visits a query over that day would find.
"""

from __future__ import annotations

from typing import Final

from sitelens.analytics.warehouse import schema
from sitelens.analytics.warehouse.dimensions import (
    DERIVED_VISIT_COLUMNS,
    IDENTITY_DIMENSIONS,
    VISIT_DIMENSIONS,
)

VISIT_GAP_MINUTES: Final = 30
# visit columns taken from the visit's first pageview
FIRST_PAGEVIEW_COLUMNS: Final = tuple(
    column
    for column in VISIT_DIMENSIONS.values()
    if column not in ("entry_page", "exit_page") and column not in DERIVED_VISIT_COLUMNS
)
# what every row of a visitor has alike (`IDENTITY_DIMENSIONS`)
IDENTITY_COLUMNS: Final = frozenset(VISIT_DIMENSIONS[name] for name in IDENTITY_DIMENSIONS)
# A visit as compaction stores it (`summaries`): `ts` is when it started; `v_events` counts
# its pageviews and custom events, `v_interactions` its custom events.
COLUMNS: Final[tuple[tuple[str, schema.ColumnType], ...]] = (
    ("visitor", "bigint"),  # VISITOR_KEY of the visitor hash
    ("ts", "timestamp"),
    ("v_pageviews", "bigint"),
    ("v_interactions", "bigint"),
    ("v_events", "bigint"),
    ("v_duration", "bigint"),
    ("v_entry_page", "string"),
    ("v_exit_page", "string"),
    *((f"v_{name}", "string") for name in FIRST_PAGEVIEW_COLUMNS),
)
COLUMN_NAMES: Final = tuple(name for name, _ in COLUMNS)
# A visitor hash as a 63-bit number, in DuckDB's words: eight bytes where the hash has 32
# characters, so that counting a month's distinct visitors reads a quarter as much. Two
# visitors of one day share a number about once in 5 million days of 2M visitors each.
VISITOR_KEY: Final = "CAST(HASH({visitor}) >> 1 AS BIGINT)"


# whose rows a visit is made of: a visitor hash of one site, on one UTC day
VISITOR: Final = "website_id, day, visitor"


# the rows a visit's column is taken from the first of: its pageviews, or for an identity
# column any row but an engagement (which may belong to the visit before)
_FIRST_OF: Final = {False: f"= {schema.PAGEVIEW_SQL}", True: f"<> {schema.ENGAGEMENT_SQL}"}


def numbering_ctes(source: str) -> str:
    """CTEs over the relation `source` (rows with `website_id`, `day`, `visitor`, `ts`,
    `name` and `hit_id` at least): `numbered`, each row with its visit number (0: in no
    visit). What the rule needs, and nothing else: a journey's steps read no visit column."""
    # rows of one instant in one order on every run: pageviews and events first, then by id
    visitor_order = f"PARTITION BY {VISITOR} ORDER BY ts, name = {schema.ENGAGEMENT_SQL}, hit_id"
    return f"""firsts AS (
  SELECT *, MIN(CASE WHEN name <> {schema.ENGAGEMENT_SQL} THEN ts END)
    OVER (PARTITION BY {VISITOR}) AS first_event
  FROM {source}
),
marked AS (
  SELECT *, CASE WHEN name <> {schema.ENGAGEMENT_SQL} AND (
      LAG(ts) OVER ({visitor_order}) IS NULL
      OR ts > LAG(ts) OVER ({visitor_order}) + INTERVAL '{VISIT_GAP_MINUTES}' MINUTE
    ) THEN 1 ELSE 0 END AS starts
  -- engagements before a visitor's first pageview or event of the range end a visit begun
  -- before it: they belong to no visit, and must not keep that pageview from starting one
  FROM firsts WHERE name <> {schema.ENGAGEMENT_SQL} OR ts >= first_event
),
numbered AS (
  SELECT *, SUM(starts) OVER (
    {visitor_order} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
  ) AS visit_no
  FROM marked
)"""


def ctes(source: str) -> str:
    """CTEs over the relation `source` (raw rows with `website_id` and `day`): `numbered`, each row
    with its visit number (0: in no visit), and `found_visits`, one row per visit that counts
    (it has a pageview or a custom event) with the columns of `COLUMNS`."""
    first_pageview = ",\n".join(
        f"ARG_MIN({name}, ts) FILTER (WHERE name {_FIRST_OF[name in IDENTITY_COLUMNS]}) AS v_{name}"
        for name in FIRST_PAGEVIEW_COLUMNS
    )
    return f"""{numbering_ctes(source)},
found_visits AS (
  SELECT * FROM (
    SELECT {VISITOR}, visit_no, MIN(ts) AS ts,
      COUNT(*) FILTER (WHERE name = {schema.PAGEVIEW_SQL}) AS v_pageviews,
      COUNT(*) FILTER (WHERE interactive) AS v_interactions,
      COUNT(*) FILTER (WHERE name <> {schema.ENGAGEMENT_SQL}) AS v_events,
      DATE_DIFF('second', MIN(ts), MAX(ts)) AS v_duration,
      ARG_MIN(page, ts) FILTER (WHERE name = {schema.PAGEVIEW_SQL}) AS v_entry_page,
      ARG_MAX(page, ts) FILTER (WHERE name = {schema.PAGEVIEW_SQL}) AS v_exit_page,
      {first_pageview}
    FROM numbered WHERE visit_no > 0
    GROUP BY {VISITOR}, visit_no
  ) WHERE v_pageviews + v_interactions > 0
)"""
