"""The crawls table's files (`analytics.warehouse.crawls`): an upload's rows written as one
Parquet file per day, in the events bucket deployed, in `make serve`'s warehouse folder
locally (`warehouse.LocalEngine.place`). A file's key is the upload's: sent again, it is
replaced, never added."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sitelens.data import warehouse


def put(files: Mapping[str, Sequence[Mapping[str, Any]]], columns: Mapping[str, str]) -> int:
    """Write each key's rows as one Parquet file at that key of the warehouse, ordered by
    `ts`, with these columns (name -> DuckDB type); how many files."""
    if not files:
        return 0
    import duckdb

    connection = duckdb.connect(":memory:")
    local = warehouse.local_engine()
    try:
        with tempfile.TemporaryDirectory(prefix="sitelens-crawls-") as folder:
            for n, (key, rows) in enumerate(sorted(files.items())):
                path = Path(folder) / f"{n}.parquet"
                _write(connection, rows, columns, path)
                if local is not None and local.place is not None:
                    local.place(path, key)
                else:
                    warehouse.upload(path, key)
    finally:
        connection.close()
    return len(files)


def _write(
    connection: Any, rows: Sequence[Mapping[str, Any]], columns: Mapping[str, str], path: Path
) -> None:
    """Rows as one Parquet file, ordered by time (DuckDB parses the JSON lines itself)."""
    source = path.with_suffix(".json")
    source.write_text(
        "\n".join(json.dumps({n: row[n] for n in columns}, default=str) for row in rows)
    )
    typed = ", ".join(f"'{name}': '{kind}'" for name, kind in columns.items())
    connection.execute(  # the files and columns are ours
        f"COPY (SELECT * FROM read_json('{source}', format = 'newline_delimited', "  # noqa: S608
        f"columns = {{{typed}}}) ORDER BY ts) TO '{path}' (FORMAT parquet)"
    )
