"""Journeys as SQL: the pages viewed next after a page, and the paths of visits from their
entry, over the visits of a range (`visits`' rule: one home for what a visit is).

A visit's steps are its pageviews in the order of `visits` (time, then hit id); custom
events and engagements are no step. The query's filters choose visits, not rows: a visit
is in when one of its pageviews or custom events matches them (as a visit is counted by
the query API), and then all its pageviews make its steps. A path is a visit's first
`steps` pages; a visit with more is marked truncated, and grouped apart from one that
ended there. Written once in DuckDB's dialect and rendered for the engine, as `sql`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Final

from sitelens.analytics.warehouse import raw, schema, sql, visits
from sitelens.analytics.warehouse.query import Query
from sitelens.data import warehouse

MAX_STEPS: Final = 5  # pages of a path: each is one more column to group by
MAX_ROWS: Final = 100  # rows of an answer
DEFAULT_ROWS: Final = 20
KINDS: Final = ("next_pages", "paths")
_VISIT: Final = "website_id, day, visitor, visit_no"


def _steps_sql(query: Query, stale: raw.SiteDays, dialect: str) -> str:
    """`steps`: each pageview of a chosen visit, with its number and its visit's count.

    Without filters every visit is chosen, and a visit with a pageview always counts: the
    steps need only the rows' visit numbers, so the windows of the rule run over the seven
    columns it reads rather than every column and every visit's (ten times fewer bytes to
    sort at 10M events). ClickHouse finds visits in one chain of its own (`clickhouse`)."""
    if not query.filters and dialect != "clickhouse":
        return f"""{raw.raw_sql(query, stale)},
step_rows AS (SELECT website_id, day, visitor, ts, hit_id, name, page FROM raw),
{visits.numbering_ctes("step_rows")},
steps AS (
  SELECT {_VISIT}, COALESCE(page, '') AS page,
    ROW_NUMBER() OVER (PARTITION BY {_VISIT} ORDER BY ts, hit_id) AS step,
    COUNT(*) OVER (PARTITION BY {_VISIT}) AS steps
  FROM numbered WHERE visit_no > 0 AND name = {schema.PAGEVIEW_SQL}
)"""
    return f"""{sql.visits_sql(query, stale)},
chosen_visits AS (
  SELECT e.*, MAX(CASE WHEN {sql.where(query.filters)} THEN 1 ELSE 0 END)
    OVER (PARTITION BY {_VISIT}) AS chosen
  FROM hits AS e
),
steps AS (
  SELECT {_VISIT}, COALESCE(page, '') AS page,
    ROW_NUMBER() OVER (PARTITION BY {_VISIT} ORDER BY ts, hit_id) AS step,
    COUNT(*) OVER (PARTITION BY {_VISIT}) AS steps
  FROM chosen_visits WHERE chosen = 1 AND name = {schema.PAGEVIEW_SQL}
)"""


def next_pages_statement(
    query: Query, page: str, limit: int, dialect: str, stale: raw.SiteDays
) -> str:
    """Rows of (next page, exits: 1 when the visit ended on the page, visitors, visits,
    transitions, percentage of the page's views, total rows), most transitions first."""
    same_visit = " AND ".join(f"a.{c} = b.{c}" for c in _VISIT.split(", "))
    text = f"""
WITH {_steps_sql(query, stale, dialect)},
moves AS (
  SELECT a.website_id, a.day, a.visitor, a.visit_no, b.page AS next_page, 0 AS exits
  FROM steps AS a JOIN steps AS b ON {same_visit} AND b.step = a.step + 1
  WHERE a.page = {schema.literal(page)}
  UNION ALL
  SELECT {_VISIT}, '' AS next_page, 1 AS exits
  FROM steps WHERE page = {schema.literal(page)} AND step = steps
),
per_visit AS (
  SELECT {_VISIT}, next_page, exits, COUNT(*) AS times FROM moves
  GROUP BY {_VISIT}, next_page, exits
)
SELECT next_page, exits, COUNT(DISTINCT visitor) AS visitors, COUNT(*) AS visits,
  SUM(times) AS transitions,
  ROUND(100.0 * SUM(times) / SUM(SUM(times)) OVER (), 1) AS percentage,
  COUNT(*) OVER () AS total_rows
FROM per_visit
GROUP BY next_page, exits
ORDER BY transitions DESC, visits DESC, exits ASC, next_page ASC
LIMIT {int(limit)}
"""
    return raw.rendered(text, dialect)


def paths_statement(
    query: Query, steps: int, entry: str | None, limit: int, dialect: str, stale: raw.SiteDays
) -> str:
    """Rows of (the first `steps` pages, '' past a visit's last, truncated: 1 when the visit
    had more, visitors, visits, percentage of the visits, total rows), most visits first;
    only visits entering on `entry` when given."""
    pages = [f"p{n}" for n in range(1, steps + 1)]
    pivot = ", ".join(
        f"MAX(CASE WHEN step = {n} THEN page END) AS p{n}" for n in range(1, steps + 1)
    )
    entered = f"WHERE p1 = {schema.literal(entry)}" if entry is not None else ""
    text = f"""
WITH {_steps_sql(query, stale, dialect)},
per_visit AS (
  SELECT {_VISIT}, {pivot}, MAX(steps) AS steps
  FROM steps WHERE step <= {int(steps)} GROUP BY {_VISIT}
),
paths AS (
  SELECT visitor, {", ".join(f"COALESCE({p}, '') AS {p}" for p in pages)},
    CASE WHEN steps > {int(steps)} THEN 1 ELSE 0 END AS truncated
  FROM per_visit {entered}
)
SELECT {", ".join(pages)}, truncated, COUNT(DISTINCT visitor) AS visitors, COUNT(*) AS visits,
  ROUND(100.0 * COUNT(*) / SUM(COUNT(*)) OVER (), 1) AS percentage,
  COUNT(*) OVER () AS total_rows
FROM paths
GROUP BY {", ".join(pages)}, truncated
ORDER BY visits DESC, {", ".join(f"{p} ASC" for p in pages)}, truncated ASC
LIMIT {int(limit)}
"""
    return raw.rendered(text, dialect)


def answer(kind: str, rows: warehouse.Rows) -> dict[str, Any]:
    """The journey's rows as the API shows them: `null` for no next page (the visit ended
    on the page), a path's pages without the empty ones past its end."""
    results: list[dict[str, Any]] = []
    for row in rows:
        if kind == "next_pages":
            next_page, exits, visitors, visits, transitions, percentage, _ = row
            shown: dict[str, Any] = {"next_page": None if int(exits) else str(next_page)}
            shown["transitions"] = int(transitions)
        else:
            *path, truncated, visitors, visits, percentage, _ = row
            shown = {"path": [str(page) for page in path if page != ""]}
            shown["truncated"] = bool(int(truncated))
        counts = {"visitors": int(visitors), "visits": int(visits)}
        results.append({**shown, **counts, "percentage": float(percentage or 0)})
    return {"results": results, "meta": {"total_rows": int(rows[0][-1]) if rows else 0}}


def rows_from(
    run: Callable[[str], warehouse.Rows], dialect: str
) -> Callable[[Query, dict[str, Any]], warehouse.Rows]:
    """A journey's rows from an engine (`run` a statement in `dialect`): `asked` holds
    `kind`, `page`, `steps` and `limit`."""

    def rows(query: Query, asked: dict[str, Any]) -> warehouse.Rows:
        if asked["kind"] == "next_pages":
            statement = partial(next_pages_statement, page=asked["page"], limit=asked["limit"])
        else:
            statement = partial(
                paths_statement, steps=asked["steps"], entry=asked["page"], limit=asked["limit"]
            )
        return raw.engine_rows(lambda q, d, s: statement(q, dialect=d, stale=s), run, dialect)(
            query
        )

    return rows


def rows(query: Query, asked: dict[str, Any]) -> warehouse.Rows:
    """`rows_from` the engine in use."""
    return rows_from(warehouse.run, warehouse.dialect())(query, asked)
