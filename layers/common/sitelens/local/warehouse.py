"""`make serve`'s warehouse: the deployed Parquet layout on disk, queried by DuckDB.

Rows are written as the deployment's Firehose writes them, into hive-style folders
`website_id=<id>/day=<YYYY-MM-DD>/`, one Parquet file per flush; queries run in process on
DuckDB over those files, with the SQL `warehouse.sql` renders for the "duckdb" dialect.
"""

from __future__ import annotations

import json
import tempfile
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from sitelens.analytics.warehouse import schema

_DUCKDB_TYPES = {
    "timestamp": "TIMESTAMP",
    "string": "VARCHAR",
    "bigint": "BIGINT",
    "boolean": "BOOLEAN",
}


class LocalWarehouse:
    """Parquet files under `root`, one DuckDB connection, one writer or reader at a time."""

    def __init__(self, root: Path) -> None:
        import duckdb

        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.connection = duckdb.connect(":memory:")
        self.connection.execute("SET TimeZone = 'UTC'")

    def write(self, rows: Iterable[Mapping[str, Any]]) -> int:
        """Append rows (dicts with every column and partition key); returns how many.

        The rows go in as JSON lines that DuckDB parses itself: `executemany` inserts one
        row at a time, about a millisecond each, which would hold up the aggregator."""
        fields = (*schema.PARTITIONS, *schema.COLUMNS)
        lines = [
            json.dumps({name: row.get(name) for name, _ in fields}, default=str) for row in rows
        ]
        if not lines:
            return 0
        columns = ", ".join(f"'{name}': '{_DUCKDB_TYPES[kind]}'" for name, kind in fields)
        with self.lock, tempfile.NamedTemporaryFile("w", suffix=".json") as batch:
            batch.write("\n".join(lines))
            batch.flush()
            self.connection.execute(  # the file and the columns are ours
                "CREATE OR REPLACE TEMP TABLE batch AS SELECT * FROM read_json("  # noqa: S608
                f"'{batch.name}', format = 'newline_delimited', columns = {{{columns}}})"
            )
            self.connection.execute(
                f"COPY batch TO '{self.root}' (FORMAT parquet, PARTITION_BY (website_id, day), "
                "APPEND, FILENAME_PATTERN 'part-{uuid}')"
            )
        return len(lines)

    def close(self) -> None:
        """Close the connection (DuckDB's bindings warn at exit about one left open)."""
        with self.lock:
            self.connection.close()

    def run(self, sql: str) -> list[tuple[Any, ...]]:
        """The rows of a statement over the relation `events` (every file under `root`)."""
        with self.lock:
            self._define_events()
            return self.connection.execute(sql).fetchall()

    def _define_events(self) -> None:
        files = self.root / "**" / "*.parquet"
        if any(self.root.glob("website_id=*/day=*/*.parquet")):
            self.connection.execute(  # the path is ours, not a request's
                f"CREATE OR REPLACE TEMP VIEW events AS SELECT * FROM read_parquet('{files}', "  # noqa: S608
                "hive_partitioning = true, union_by_name = true, "
                "hive_types = {'website_id': BIGINT, 'day': VARCHAR})"
            )
        else:  # no file yet: the same columns, no rows
            columns = ", ".join(
                f"CAST(NULL AS {_DUCKDB_TYPES[kind]}) AS {name}"
                for name, kind in (*schema.COLUMNS, *schema.PARTITIONS)
            )
            self.connection.execute(
                f"CREATE OR REPLACE TEMP VIEW events AS SELECT {columns} WHERE FALSE"
            )
