"""The warehouse on ClickHouse: its table, how landing files go in, and the few words of
ClickHouse's SQL that SQLGlot's "clickhouse" dialect does not write as DuckDB means them.

The rows are the same rows (`schema.COLUMNS`), from the same landing Parquet files, in one
table `events` whose engine collapses the copies of a hit: a `ReplacingMergeTree` keyed by
(website, UTC day, hit id). Hit ids are UUIDv7, which sort by time, so that key is also the
time order of a site's day. Merges collapse copies some time after they arrive: every
statement reads the table `FINAL` (`rendered`), which collapses the rest as it reads, so an
answer counts each hit once whenever it is asked. There is no landing stage and no
compaction to wait for: `landing` is an empty table (the SQL's dedupe of landing against
compacted rows finds nothing to do), and the per-site-day summaries are not kept
(`summaries.plan` is not asked): ClickHouse counts a month of events per query faster than
Athena reads a month of summaries, and one copy of the rows cannot disagree with another.
"""

from __future__ import annotations

from typing import Final, cast

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
ORDER BY (website_id, day, hit_id)""",
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
    - `VISITOR_KEY(v)`: ClickHouse's hash (`VISITOR_KEY`).
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
    return parsed.transform(words).sql(dialect=DIALECT)
