"""The imported sums of `include.imports` (`queried`): one statement, on the engine in use,
adding up the query's imported table over its days for every queried site, grouped by
the query's dimensions. Written once in DuckDB's words and rendered for the engine as the
warehouse's statements are (`raw.rendered`); the only part that differs by engine is where
a site's rows are read (`source`):

- DuckDB (`make serve`): the imports' files in place (its read_parquet);
- Athena: the table's Glue table (template.yaml, `Imported*Table`), its partitions
  `website_id = <site> AND import_id IN (...)` found by projection;
- ClickHouse: the same files read in place by the server (its s3 table function), as it
  reads landing.
"""

from __future__ import annotations

from typing import Final

from sitelens.analytics import sources
from sitelens.analytics.imports import tables
from sitelens.analytics.warehouse import raw
from sitelens.analytics.warehouse.dimensions import TIME_DIMENSIONS
from sitelens.analytics.warehouse.query import Query
from sitelens.data import imports as stored_imports
from sitelens.data import warehouse

Sites = dict[int, tuple[list[int], str | None]]  # site -> its imports read, its first native day
_SOURCE: Final = "imported_source_{n}"  # a site's rows, until `source` names them
_CLICKHOUSE_TYPES: Final = {"date": "Date", "text": "Nullable(String)", "count": "Nullable(Int64)"}


def structure(table: str) -> str:
    """The table's columns in ClickHouse's words (its files' columns, as the job writes)."""
    texts, counts = tables.TABLES[table]
    typed = [
        f"date {_CLICKHOUSE_TYPES['date']}",
        *(f"{name} {_CLICKHOUSE_TYPES['text']}" for name in texts),
        *(f"{name} {_CLICKHOUSE_TYPES['count']}" for name in counts),
    ]
    return ", ".join(typed)


def source(dialect: str, site: int, ids: list[int], table: str) -> str | None:
    """Where one site's rows of the imports `ids` of `table` are read on the engine (None:
    nowhere, no file of them under `make serve`)."""
    if dialect == "athena":
        listed = ", ".join(str(int(i)) for i in ids)
        return (
            f"(SELECT * FROM {table} "  # noqa: S608 (names and numbers are ours)
            f"WHERE website_id = {int(site)} AND import_id IN ({listed}))"
        )
    if dialect == "clickhouse":
        return stored_imports.clickhouse_files(site, ids, table, structure(table))
    files = stored_imports.table_files(site, ids, table)
    if not files:
        return None
    return f"read_parquet([{', '.join(repr(str(path)) for path in files)}])"


def _label(query: Query, dimension: str) -> str:
    if dimension == "time:day":
        return "strftime(date, '%Y-%m-%d')"
    if dimension == "time:month":
        return "strftime(date_trunc('month', date), '%Y-%m-%d')"
    # a week begun before the range is named by the range's first day, as natively
    return f"greatest(strftime(date_trunc('week', date), '%Y-%m-%d'), '{query.first_day}')"


def statement(
    query: Query, sites: Sites, table: str, column: str, sums: dict[str, str], dialect: str
) -> str | None:
    """The engine's SQL of the sums (`sums`: name -> the table's column) per group of the
    query's dimensions (`column`: the table's of its one other than time), each site's rows
    before its first native day only; None when no site has rows to read."""
    labels = [
        _label(query, d) if d in TIME_DIMENSIONS else f"coalesce({column}, '')"
        for d in query.dimensions
    ]
    read = sorted({"date", *([column] if column else []), *sums.values()})
    parts: list[str] = []
    found: dict[str, str] = {}
    for n, (site, (ids, clip)) in enumerate(sorted(sites.items())):
        where = source(dialect, site, ids, table) if ids else None
        if where is None:
            continue
        found[_SOURCE.format(n=n)] = where
        before = f" AND date < DATE '{clip}'" if clip else ""
        parts.append(
            f"SELECT {', '.join(read)} FROM {_SOURCE.format(n=n)} AS s "  # noqa: S608
            f"WHERE date BETWEEN DATE '{query.first_day}' AND DATE '{query.last_day}'{before}"
        )
    if not parts:
        return None
    selected = [*labels, *(f"SUM({name})" for name in sums.values())]
    group = f" GROUP BY {', '.join(labels)}" if labels else ""
    text = f"SELECT {', '.join(selected)} FROM ({' UNION ALL '.join(parts)}) AS imported{group}"  # noqa: S608
    rendered = raw.rendered(text, dialect)
    for placeholder, where in found.items():
        rendered = rendered.replace(placeholder, where)
    return rendered


def groups(
    query: Query, sites: Sites, table: str, column: str, sums: dict[str, str]
) -> dict[tuple[str, ...], dict[str, int]]:
    """The imported sums of each group of the query's dimensions over its days, from the
    engine in use (goal names for custom events, the empty source for `Direct / None`)."""
    others = [d for d in query.dimensions if d not in TIME_DIMENSIONS]
    dimension = others[0] if others else None
    position = query.dimensions.index(dimension) if dimension else 0
    goal_names = {g.event_name: g.name for g in query.goals if g.event_name and not g.custom_props}
    text = statement(query, sites, table, column, sums, warehouse.dialect())
    found: dict[tuple[str, ...], dict[str, int]] = {}
    width = len(query.dimensions)
    for row in warehouse.run(text) if text else []:
        key = [str(value) for value in row[:width]]
        if dimension == "event:goal":
            if key[position] not in goal_names:
                continue  # a custom event no goal of the site counts
            key[position] = goal_names[key[position]]
        if dimension == "visit:source" and key[position] == sources.NONE:
            key[position] = ""  # the warehouse's value of no source
        group = found.setdefault(tuple(key), dict.fromkeys(sums, 0))
        for name, value in zip(sums, row[width:], strict=True):
            group[name] += int(value or 0)
    return found
