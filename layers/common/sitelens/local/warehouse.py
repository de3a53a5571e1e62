"""`make serve`'s warehouse: the deployed layout on disk, compacted and queried by DuckDB.

Rows land as the deployment's Firehose writes them (`receive` splits the packed records as
the stream does), whatever their site, in
`landing/hour=<YYYY-MM-DD-HH>/` (the hour of arrival), one Parquet file per flush;
`compact` splits them into parts per site-day, and `merge` folds a closed day's parts into
`events/website_id=<id>/day=<YYYY-MM-DD>/data.parquet`, with the deployed compaction's code
(`warehouse.compaction`, `warehouse.merges`); queries run in process on DuckDB over the
three folders, with the SQL `warehouse.sql` renders for the "duckdb" dialect.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from sitelens.analytics.warehouse import (
    compaction,
    crawls,
    layout,
    merges,
    reingest,
    schema,
    summaries,
)
from sitelens.analytics.warehouse.schema import DUCKDB_TYPES as _DUCKDB_TYPES
from sitelens.core import clock
from sitelens.data import warehouse


class LocalWarehouse:
    """Parquet files under `root`, one DuckDB connection, one writer, reader or
    compaction at a time."""

    def __init__(self, root: Path) -> None:
        import duckdb

        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.connection = duckdb.connect(":memory:")
        self.connection.execute("SET TimeZone = 'UTC'")
        threads = os.environ.get("SITELENS_LOCAL_WAREHOUSE_THREADS")
        if threads:  # else DuckDB's own: one a core
            self.connection.execute(f"SET threads = {max(1, int(threads))}")
        # the relations are defined again only after this object changed the files (it is
        # their only writer): listing thousands of files costs more than most queries
        self.defined = False

    def write(self, rows: Iterable[Mapping[str, Any]]) -> int:
        """Land rows (dicts with every column and partition key) in this hour's landing
        folder, one new file, written aside and renamed into place; returns how many.

        Rows DuckDB cannot convert are taken as Firehose takes records of one row each
        (`_convert`): those that fit land, the others go to landing-errors/."""
        import duckdb

        found = list(rows)
        if not found:
            return 0
        with self.lock:
            path = self._landing_file()
            try:
                layout.land_file(self.connection, found, path)
            except duckdb.Error:
                lines = [(json.dumps(dict(row), default=str) + "\n").encode() for row in found]
                self._convert(lines, path)
            self.defined = False
        return len(found)

    def receive(self, records: Sequence[bytes]) -> int:
        """The stream's stand-in: packed records (`warehouse.pack`) split into their rows and
        converted as Firehose does (`_convert`), in one new landing file; how many rows."""
        with self.lock:
            sent = self._convert(records, self._landing_file())
            self.defined = False
        return sent

    def _landing_file(self) -> Path:
        hour = clock.now().strftime("%Y-%m-%d-%H")
        return self.root / compaction.landing_folder(hour) / f"part-{uuid.uuid4().hex}.parquet"

    def _convert(self, records: Sequence[bytes], path: Path) -> int:
        """As Firehose's conversion: each record's JSON documents are its rows; a record
        whose rows all fit the landing schema lands (at `path`), any other is written whole
        to landing-errors/ in Firehose's error format. How many rows the records held."""
        fit: list[dict[str, Any]] = []
        failed: list[dict[str, Any]] = []
        sent = 0
        for record in records:
            found, rest = warehouse.documents(record)
            sent += len(found) + (1 if rest else 0)
            try:
                if rest:
                    raise reingest.Unfit("not JSON")
                fit += [reingest.landing_row(raw) for raw, _ in found]
            except reingest.Unfit as err:
                failed.append(
                    reingest.error_document(
                        record, "DataFormatConversion.ParseError", str(err), clock.now()
                    )
                )
        layout.land_file(self.connection, fit, path)
        if failed:
            day = clock.now().strftime("%Y-%m-%d")
            target = self.root / reingest.error_file(day, f"local-{uuid.uuid4().hex}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("".join(json.dumps(found) + "\n" for found in failed))
        return sent

    def place(self, path: Path, key: str) -> None:
        """Put a finished file at `key` under `root`, replacing one there (crawl files)."""
        with self.lock:
            target = self.root / key
            target.parent.mkdir(parents=True, exist_ok=True)
            aside = target.with_name(f".{target.name}.{uuid.uuid4().hex}")
            aside.write_bytes(path.read_bytes())
            os.replace(aside, target)
            self.defined = False

    def mark_deleted(self, path: str) -> None:
        """Write a tombstone (`deletions.mark`) under `root`."""
        with self.lock:
            target = self.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(clock.now_iso())

    def compact(self) -> dict[str, int]:
        """Split every landing file into parts per site-day (`warehouse.compaction`)."""
        with self.lock:
            self.defined = False
            return compaction.compact_folder(self.connection, self.root)

    def merge(self, today: date) -> dict[str, int]:
        """Fold the parts of the days before `today` into their days' files (`merges`)."""
        with self.lock:
            self.defined = False
            return merges.merge_folder(self.connection, self.root, today)

    def close(self) -> None:
        """Close the connection (DuckDB's bindings warn at exit about one left open)."""
        with self.lock:
            self.connection.close()

    def run(self, sql: str) -> list[tuple[Any, ...]]:
        """The rows of a statement over the relation `events` (every file under `root`)."""
        with self.lock:
            if not self.defined:
                self._define_events()
                self.defined = True
            return self.connection.execute(sql).fetchall()

    def _define_events(self) -> None:
        """The relations the SQL reads: `events` (merged, partitioned by site and day), the
        summaries the merge writes beside it (`summaries`), `event_parts` (the hourly runs'
        parts, by site and day) and `landing` (rows not compacted yet, with their partition
        keys as columns)."""
        by_site_day = (
            "hive_partitioning = true, hive_types = {'website_id': BIGINT, 'day': VARCHAR}"
        )
        for name, columns in (
            (compaction.COMPACTED, schema.COLUMNS),
            (compaction.PARTS, schema.COLUMNS),
            *summaries.COLUMNS.items(),
        ):
            self._define(name, columns, "website_id=*/day=*/*.parquet", by_site_day)
        self._define(crawls.FOLDER, crawls.COLUMNS, "website_id=*/day=*/*.parquet", by_site_day)
        self._define(  # files of any age: columns matched by name
            compaction.LANDING,
            schema.COLUMNS,
            "hour=*/part-*.parquet",
            "hive_partitioning = true, hive_types = {'hour': VARCHAR}",
            ", CAST(NULL AS VARCHAR) AS hour",
        )

    def _some_lack_columns(
        self, files: list[Path], columns: tuple[tuple[str, schema.ColumnType], ...]
    ) -> bool:
        """Whether any of these Parquet files lacks one of the columns (read once a
        definition, from the files' footers)."""
        listed = ", ".join(f"'{path}'" for path in files)
        names = ", ".join(f"'{name}'" for name, _ in columns)
        found = self.connection.execute(  # the paths and names are ours
            f"SELECT COUNT(*) FROM (SELECT file_name FROM parquet_schema([{listed}]) "  # noqa: S608
            f"WHERE name IN ({names}) GROUP BY file_name HAVING COUNT(*) = {len(columns)})"
        ).fetchone()
        return int(found[0] if found else 0) < len(files)

    def _define(
        self,
        name: str,
        columns: tuple[tuple[str, schema.ColumnType], ...],
        pattern: str,
        options: str,
        more: str = "",
    ) -> None:
        files = sorted((self.root / name).glob(pattern))
        if files:
            listed = ", ".join(f"'{path}'" for path in files)
            # rows' files written before a column was added lack it: NULL there, by name
            # (summaries are written whole each time: their schemas need no merging). Only
            # when some file lacks one: merging by name reads every file's footer per query.
            by_name = columns is schema.COLUMNS and self._some_lack_columns(files, columns)
            typed = schema.empty_relation((*columns, *schema.PARTITIONS))
            self.connection.execute(  # the paths are ours, not a request's
                f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM read_parquet("  # noqa: S608
                f"[{listed}], {'union_by_name = true, ' if by_name else ''}{options})"
                + (f" UNION ALL BY NAME {typed}" if by_name else "")
            )
        else:  # no file yet: the same columns, no rows
            nothing = ", ".join(
                f"CAST(NULL AS {_DUCKDB_TYPES[kind]}) AS {column}"
                for column, kind in (*columns, *schema.PARTITIONS)
            )
            self.connection.execute(
                f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT {nothing}{more} WHERE FALSE"
            )
