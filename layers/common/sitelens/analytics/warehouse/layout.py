"""Where the warehouse keeps what, in the events bucket deployed and in `make serve`'s
folder alike (paths relative to either root), and how rows become a landing file.

- `landing/hour=<YYYY-MM-DD-HH>/`: rows as they arrive, whatever their site (Firehose);
- `landing-errors/<type>/<YYYY-MM-DD>/`: records Firehose could not convert (`reingest`);
- `landing-parked/website_id=<id>/`: rows that still do not fit, kept for a human;
- `event_parts/website_id=<id>/day=<YYYY-MM-DD>/part-<run>.parquet`: the rows one hourly
  compaction took from landing for that site-day (`compaction`), until the daily merge
  folds them into the day's file (`merges`);
- `events/website_id=<id>/day=<YYYY-MM-DD>/data.parquet`: merged rows, and the summaries
  beside them (`summaries.file`);
- `deleted/<pending|removed>/website_id=<id>`: a deleted website (`deletions`), whose rows
  compaction drops.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from sitelens.analytics.warehouse import schema

LANDING: Final = "landing"  # the stream's folder: landing/hour=YYYY-MM-DD-HH/*.parquet
COMPACTED: Final = "events"  # compaction's: events/website_id=<id>/day=<day>/data.parquet
FILE_NAME: Final = "data.parquet"
# the hourly compaction's: event_parts/website_id=<id>/day=<day>/part-<run>.parquet, apart
# from events/ since Athena's table reads every object of a partition's folder as its rows
PARTS: Final = "event_parts"
# the summaries compaction writes beside each site-day (`summaries`), folder by folder
TOTALS: Final = "daily_totals"
VISITS: Final = "daily_visits"
PAGES: Final = "daily_pages"
SUMMARIES: Final = (TOTALS, VISITS, PAGES)
ERRORS: Final = "landing-errors"  # Firehose's ErrorOutputPrefix (template.yaml)
PARKED: Final = "landing-parked"  # rows that still do not fit, by site
DELETED: Final = "deleted"  # deleted/<state>/website_id=<id>: a tombstone
PENDING: Final = "pending"  # a deleted website whose files are still there
REMOVED: Final = "removed"  # a deleted website whose files compaction removed


def landing_folder(hour: str) -> str:
    """The landing folder of an arrival hour (`YYYY-MM-DD-HH`)."""
    return f"{LANDING}/hour={hour}"


def compacted_file(website_id: int, day: str) -> str:
    """Where compaction keeps one site's day, relative to the warehouse's root."""
    return f"{COMPACTED}/website_id={website_id}/day={day}/{FILE_NAME}"


def part_file(website_id: int, day: str, run: str) -> str:
    """Where one hourly compaction (`run`, its id) keeps its rows of one site's day."""
    return f"{PARTS}/website_id={website_id}/day={day}/part-{run}.parquet"


def files_sql(paths: Iterable[Path]) -> str:
    """Paths as DuckDB's list of files (ours: no quote in them)."""
    return "[" + ", ".join(f"'{path}'" for path in paths) + "]"


def kept_sql(deleted: Iterable[int]) -> str:
    """A predicate true on rows of websites not deleted (ids are numbers: formatted)."""
    sites = ", ".join(str(int(site)) for site in sorted(deleted))
    return f"website_id NOT IN ({sites})" if sites else "TRUE"


def tombstone(website_id: int, state: str) -> str:
    """The object that says a website was deleted: `PENDING` until compaction removed its
    files, then `REMOVED`."""
    return f"{DELETED}/{state}/website_id={website_id}"


def site_of_tombstone(key: str) -> int:
    """The website id a tombstone's key or path names."""
    return int(str(key).rsplit("=", 1)[1])


def land_file(connection: Any, rows: Iterable[Mapping[str, Any]], path: Path) -> int:
    """Write rows (every column and partition key) as one landing Parquet file at `path`,
    written aside and renamed into place; how many.

    The rows go in as JSON lines that DuckDB parses itself: `executemany` inserts one row at
    a time, about a millisecond each."""
    fields = (*schema.PARTITIONS, *schema.COLUMNS)
    lines = [json.dumps({name: row.get(name) for name, _ in fields}, default=str) for row in rows]
    if not lines:
        return 0
    columns = ", ".join(f"'{name}': '{schema.DUCKDB_TYPES[kind]}'" for name, kind in fields)
    path.parent.mkdir(parents=True, exist_ok=True)
    batch = path.parent / f".{path.name}.json"
    aside = path.parent / f".{path.name}"
    try:
        batch.write_text("\n".join(lines))
        connection.execute(  # the files and the columns are ours
            "CREATE OR REPLACE TEMP TABLE batch AS SELECT * FROM read_json("  # noqa: S608
            f"'{batch}', format = 'newline_delimited', columns = {{{columns}}})"
        )
        connection.execute(f"COPY batch TO '{aside}' (FORMAT parquet)")
        os.replace(aside, path)
    finally:
        batch.unlink(missing_ok=True)
    return len(lines)
