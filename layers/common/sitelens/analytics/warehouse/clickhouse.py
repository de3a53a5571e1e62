"""The warehouse on ClickHouse: its table, how landing files go in, and the few words of
ClickHouse's SQL that SQLGlot's "clickhouse" dialect does not write as DuckDB means them.

The rows are the same rows (`schema.COLUMNS`), from the same landing Parquet files, in one
table `events` whose engine collapses the copies of a hit: a `ReplacingMergeTree` sorted by
(website, UTC day, visitor, time, hit id), whose last part is unique and which copies of a
hit share. Merges collapse copies some time after they arrive: every statement reads the
table `FINAL` (`rendered`), which collapses the rest as it reads, so an answer counts each
hit once whenever it is asked. The sort key is a visitor's day in time order, the order in
which `visits` finds visits: ClickHouse 26.9 still sorts for each window (EXPLAIN
PIPELINE), but rows that come nearly in order sort faster (a visit question's CPU time
about 15% less at 1M rows, measured).
There is no landing stage and no compaction to wait for: `landing` is an empty table (the
SQL's dedupe of landing against compacted rows finds nothing to do). The per-site-day
summaries of closed days are stored by the ingest (`clickhouse_days`); a question a
summary would answer (`summaries.plan`) reads them, and counts the other days from the
visits found in their rows at query time, once each (`sql`). Other visit questions read
`hits_sql`.
"""

from __future__ import annotations

from typing import Any, Final, cast

from sitelens.analytics.warehouse import layout, schema

DIALECT: Final = "clickhouse"  # SQLGlot's name
TABLE: Final = layout.COMPACTED  # the one table queries read, with the compacted rows' name
# `visits.VISITOR_KEY` in ClickHouse's words: a 63-bit number of the visitor hash
VISITOR_KEY: Final = "toInt64(bitShiftRight(cityHash64({visitor}), 1))"

_TYPES: Final[dict[schema.ColumnType, str]] = {
    "timestamp": "DateTime64(3, 'UTC')",
    "string": "String",
    "bigint": "Int64",
    "boolean": "Bool",
}
# The key: never NULL (a row without them was refused upstream); every other column may be
# NULL, as in the Parquet files (files written before a column existed lack it).
_KEY_COLUMNS: Final = frozenset({"hit_id", "ts"})


def _column_type(name: str, kind: schema.ColumnType) -> str:
    typed = _TYPES[kind]
    return typed if name in _KEY_COLUMNS else f"Nullable({typed})"


def _columns_sql() -> str:
    columns = [
        "website_id Int64",
        "day LowCardinality(String)",  # the UTC day of `ts`, YYYY-MM-DD
        *(f"{name} {_column_type(name, kind)}" for name, kind in schema.COLUMNS),
    ]
    return ",\n  ".join(columns)


def create_statements() -> list[str]:
    """The tables, created where missing: `events` (months as partitions, one row per hit
    once merged or read FINAL) and the empty `landing` the shared SQL names."""
    return [
        f"""CREATE TABLE IF NOT EXISTS {TABLE} (
  {_columns_sql()}
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (website_id, day, visitor, ts, hit_id)
SETTINGS allow_nullable_key = 1""",
        # rows go straight into `events`: nothing ever waits in landing on ClickHouse
        f"""CREATE TABLE IF NOT EXISTS {layout.LANDING} (
  {_columns_sql()},
  hour String
) ENGINE = Null""",
    ]


def insert_statement(source: str) -> str:
    """`INSERT ... SELECT` of the landing Parquet rows `source` names (a table function:
    s3(...) deployed, file(...) locally), by column name (files written before a column
    existed lack it: NULL). The partition keys are in the files' rows already (Firehose
    writes them as columns); the day is found again from `ts` for rows of older files."""
    names = ", ".join(name for name, _ in schema.COLUMNS)
    return f"""INSERT INTO {TABLE} (website_id, day, {names})
SELECT website_id, formatDateTime(ts, '%F', 'UTC') AS day, {names}
FROM {source}
SETTINGS input_format_parquet_allow_missing_columns = 1"""  # noqa: S608 (names are ours)


def rendered(text: str) -> str:
    """DuckDB-dialect text as ClickHouse's SQL, with what SQLGlot's dialect renders
    otherwise than DuckDB means it (one home for each):

    - `(ts AT TIME ZONE 'UTC') AT TIME ZONE zone`, the wall clock of a zone: `toTimeZone`
      (whose DATE_TRUNC and formatDateTime then read that clock);
    - `TIMESTAMP '...'`: a UTC instant with its fraction (not a second-precision DateTime);
    - `events`: read `FINAL`, so copies of a hit not merged yet count once;
    - `VISITOR_KEY(v)`: ClickHouse's hash (`VISITOR_KEY`);
    - the visits found and joined into `hits` (`visits.ctes`): `hits_sql`.
    """
    import sqlglot  # imported here: see `schema.literal`
    from sqlglot import exp

    def words(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.AtTimeZone) and isinstance(node.this, exp.Paren):
            inner = node.this.this
            if isinstance(inner, exp.AtTimeZone):  # UTC instant -> the zone's wall clock
                return cast(exp.Expression, exp.func("toTimeZone", inner.this, node.args["zone"]))
        literal = isinstance(node, exp.Cast) and node.this.is_string
        if literal and node.is_type("timestamp", "datetime"):
            utc = (exp.Literal.number(6), exp.Literal.string("UTC"))
            return cast(exp.Expression, exp.func("toDateTime64", node.this, *utc))
        table = node.this if isinstance(node, (exp.From, exp.Join)) else None
        if isinstance(table, exp.Table) and table.name == TABLE:  # `FROM events AS e FINAL`
            node.set("this", exp.Final(this=table.copy()))
            return node
        if isinstance(node, exp.Anonymous) and node.name.upper() == "VISITOR_KEY":
            argument = node.expressions[0].sql(dialect=DIALECT)
            return exp.maybe_parse(VISITOR_KEY.format(visitor=argument), dialect=DIALECT)
        return node

    parsed = sqlglot.parse_one(text, read="duckdb")
    found_in_one_pass = _without_visit_ctes(parsed)
    rendered_text = parsed.transform(words).sql(dialect=DIALECT)
    if found_in_one_pass:
        rendered_text = rendered_text.replace(f"SELECT * FROM {_PLACEHOLDER}", hits_sql())  # noqa: S608
    return rendered_text


def _without_visit_ctes(parsed: Any) -> bool:
    """Whether the statement finds visits (`visits.ctes`, joined into `hits`): if so,
    those CTEs are taken out and `hits` reads a placeholder that `hits_sql` replaces."""
    from sqlglot import exp

    with_ = parsed.args.get("with_")
    ctes = {cte.alias: cte for cte in with_.expressions} if with_ else {}
    if not set(ctes) >= _VISIT_CTES or _HITS not in ctes:
        return False
    with_.set("expressions", [c for name, c in ctes.items() if name not in _VISIT_CTES])
    ctes[_HITS].set("this", exp.select("*").from_(_PLACEHOLDER))
    return True


# The visit CTEs of `visits.ctes` and the `hits` of `sql.visits_sql` that joins them to the
# rows: ClickHouse inlines a CTE wherever it is named, so there the windows run twice and
# every row is hashed for the join; `hits_sql` gives the same rows in one chain of windows.
_VISIT_CTES: Final = frozenset({"firsts", "marked", "numbered", "found_visits"})
_HITS: Final = "hits"
_PLACEHOLDER: Final = "__sitelens_visit_hits__"


def hits_sql() -> str:
    """`sql.visits_sql`'s `hits` from `raw` by `visits`' rule, in one chain of windows
    over a visitor's day in the rule's order, with no join: an event starts a visit when
    it is the visitor's first, or comes more than the gap after the row before (the
    engagements before the first event are in no visit, `visit_no` 0, as `marked` cuts
    them off); each row then gets its visit's columns by aggregates over the visit's
    rows, and the events of visits that count are kept. `test_clickhouse` compares its
    answers with DuckDB's, which `visits.ctes` gives."""
    from sitelens.analytics.warehouse import visits  # imported here: `visits` imports schema

    event = f"ifNull(name <> {schema.ENGAGEMENT_SQL}, 0)"
    pageview = f"name = {schema.PAGEVIEW_SQL}"
    first_of = {False: pageview, True: event}
    firsts = ",\n      ".join(
        f"argMinIf({name}, ts, {first_of[name in visits.IDENTITY_COLUMNS]}) OVER visit AS v_{name}"
        for name in visits.FIRST_PAGEVIEW_COLUMNS
    )
    ordered = f"PARTITION BY {visits.VISITOR} ORDER BY ts, name = {schema.ENGAGEMENT_SQL}, hit_id"
    return f"""SELECT * FROM (
  SELECT *,
    countIf({pageview}) OVER visit AS v_pageviews,
    countIf(interactive) OVER visit AS v_interactions,
    countIf({event}) OVER visit AS v_events,
    dateDiff('second', min(ts) OVER visit, max(ts) OVER visit) AS v_duration,
    argMinIf(page, ts, {pageview}) OVER visit AS v_entry_page,
    argMaxIf(page, ts, {pageview}) OVER visit AS v_exit_page,
    {firsts}
  FROM (
    SELECT *, sum(visit_starts) OVER (
      {ordered} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS visit_no
    FROM (
      SELECT *, toUInt8({event} AND (
        events_before = 0
        OR ts > previous_ts + toIntervalMinute({visits.VISIT_GAP_MINUTES})
      )) AS visit_starts
      FROM (
        SELECT *,
          lagInFrame(ts) OVER (
            {ordered} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
          ) AS previous_ts,
          sum(toUInt8({event})) OVER (
            {ordered} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
          ) AS events_before
        FROM raw
      )
    )
  )
  WHERE visit_no > 0
  WINDOW visit AS (PARTITION BY {visits.VISITOR}, visit_no)
)
WHERE {event} AND v_pageviews + v_interactions > 0"""  # noqa: S608 (names are ours)
