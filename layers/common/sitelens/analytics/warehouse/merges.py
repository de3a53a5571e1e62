"""The daily merge, compaction's second level: the parts the hourly runs wrote for a closed
UTC site-day (`layout.PARTS`) folded with the day's data.parquet into a new one, sorted by
time, one row per hit id, with the day's summaries beside it.

Once a day, after the UTC day closes (CompactionFunction invoked with `{"merge": true}`),
it folds every site-day of a day before today that has parts: yesterday's, and older days'
that received late parts since. A day's file is so rewritten about once, not every hour.

Order, and why no row is ever lost or counted twice: the new data.parquet and its
summaries are put first, the folded parts deleted last. Until then the site-day has parts,
so readers take it as not merged (`raw.stale_statement`): its summaries answer nothing, and
each part row counts only when its hit id is not in data.parquet (`raw.raw_sql`). A crash
anywhere leaves the parts, and the next merge folds them again into the same file.

Bounded: at most MAX_SITE_DAYS site-days a run, in batches of BATCH_SITE_DAYS, none begun
after MERGE_SECONDS; what is left waits for the next run (`left`), read meanwhile as parts.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any, Final

from sitelens.analytics.warehouse import deletions, layout, schema, summaries
from sitelens.data import warehouse

MAX_PART_FILES: Final = 1_000_000  # listed a run: 24 a day for each active site-day
MAX_SITE_DAYS: Final = 5_000  # folded a run; the rest, the next run
BATCH_SITE_DAYS: Final = 100  # a COPY each: put, then its parts deleted, before the next
# no batch begun later: CompactionFunction's 900 s timeout leaves 300 s for the last one
MERGE_SECONDS: Final = 600.0
ROW_GROUP_ROWS: Final = 122_880  # DuckDB's default row group: min/max per group prune by time

SiteDay = tuple[int, str]


def due(paths: Iterable[str], today: date) -> dict[SiteDay, list[str]]:
    """The parts (keys or paths) of site-days before `today` (closed UTC days), by site-day,
    oldest day first."""
    found: dict[SiteDay, list[str]] = {}
    for path in paths:
        site_day = schema.site_day(path)
        if site_day[1] < today.isoformat():
            found.setdefault(site_day, []).append(path)
    return dict(sorted(found.items(), key=lambda item: (item[0][1], item[0][0])))


def fold(
    connection: Any,
    sources: Mapping[SiteDay, Sequence[Path]],
    output: Path,
    deleted: Collection[int] = (),
) -> dict[str, Path]:
    """Fold each site-day's files (its data.parquet and its parts) into one new file under
    `output`, with its summaries; each new file by where it belongs (`layout.compacted_file`,
    `summaries.file`). Site-days of `deleted` websites get none.

    One row per hit id (the copies are equal), sorted by time within each file."""
    columns = ", ".join(name for name, _ in schema.COLUMNS)
    # files written before a column was added lack it: NULL there (`empty_relation`)
    selects = [
        f"SELECT CAST({int(site)} AS BIGINT) AS website_id, '{day}' AS day, {columns} "  # noqa: S608
        f"FROM (SELECT * FROM read_parquet({layout.files_sql(files)}, union_by_name = true, "
        f"hive_partitioning = false) UNION ALL BY NAME {schema.empty_relation(schema.COLUMNS)})"
        for (site, day), files in sorted(sources.items())
        if files and site not in deleted
    ]
    if not selects:
        return {}
    found = write_site_days(connection, "\nUNION ALL\n".join(selects), output, "data")
    written = {layout.compacted_file(*site_day): path for site_day, path in found.items()}
    beside = summaries.write(
        connection, list(written.values()), output / f"summaries-{uuid.uuid4().hex}"
    )
    return {**written, **beside}  # the events files first: put before their summaries


def rows(connection: Any, files: Sequence[Path]) -> int:
    """How many rows these Parquet files hold."""
    if not files:
        return 0
    found = connection.execute(
        f"SELECT COUNT(*) FROM read_parquet({layout.files_sql(files)})"  # noqa: S608
    ).fetchone()
    return int(found[0]) if found else 0


def _events_files(written: dict[str, Path]) -> list[Path]:
    return [path for key, path in written.items() if key.startswith(layout.COMPACTED + "/")]


def _batches(work: dict[SiteDay, list[str]]) -> list[dict[SiteDay, list[str]]]:
    items = list(work.items())[:MAX_SITE_DAYS]
    return [dict(items[at : at + BATCH_SITE_DAYS]) for at in range(0, len(items), BATCH_SITE_DAYS)]


def merge_folder(connection: Any, root: Path, today: date) -> dict[str, int]:
    """The daily merge of a warehouse on disk (`make serve`'s), as `merge_bucket`."""
    _, deleted = deletions.in_folder(root)
    work = due((str(p) for p in sorted((root / layout.PARTS).glob("*/*/part-*.parquet"))), today)
    done = {"merged": 0, "parts": 0, "rows": 0}
    started = time.monotonic()
    for batch in _batches(work):
        if time.monotonic() - started > MERGE_SECONDS:
            break
        sources = {
            site_day: [
                *([merged] if (merged := root / layout.compacted_file(*site_day)).exists() else []),
                *(Path(part) for part in parts),
            ]
            for site_day, parts in batch.items()
        }
        scratch = root / f"merge-{uuid.uuid4().hex}"
        written = fold(connection, sources, scratch, deleted)
        done["rows"] += rows(connection, _events_files(written))
        for target, path in written.items():
            (root / target).parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, root / target)  # atomic: a reader sees the old file or the new
        for parts in batch.values():  # only once every merged file is in place
            for part in parts:
                Path(part).unlink(missing_ok=True)
        shutil.rmtree(scratch, ignore_errors=True)
        done["merged"] += len(batch)
        done["parts"] += sum(len(parts) for parts in batch.values())
    return {**done, "left": len(work) - done["merged"]}


def merge_bucket(today: date) -> dict[str, int]:
    """The daily merge of the events bucket: each due site-day's parts and data.parquet
    fetched to /tmp, folded (`fold`), the new files put, and only then the parts deleted."""
    import duckdb

    _, deleted = deletions.in_bucket()
    work = due(warehouse.object_keys(layout.PARTS + "/", MAX_PART_FILES), today)
    done = {"merged": 0, "parts": 0, "rows": 0}
    started = time.monotonic()
    connection = duckdb.connect(":memory:")
    # a big day's sort may spill: to /tmp (EphemeralStorage), not the read-only code folder
    connection.execute(f"SET temp_directory = '{Path(tempfile.gettempdir()) / 'merge-spill'}'")
    try:
        for batch in _batches(work):
            if time.monotonic() - started > MERGE_SECONDS:
                break
            with tempfile.TemporaryDirectory(prefix="merge-") as scratch:
                root = Path(scratch)
                sources: dict[SiteDay, list[Path]] = {}
                for site_day, parts in batch.items():
                    if site_day[0] in deleted:  # its parts go, folded into nothing
                        continue
                    merged = root / layout.compacted_file(*site_day)
                    found = (
                        [merged]
                        if warehouse.download(str(merged.relative_to(root)), merged)
                        else []
                    )
                    for part in parts:
                        if warehouse.download(part, root / part):
                            found.append(root / part)
                    sources[site_day] = found
                written = fold(connection, sources, root / "merged", deleted)
                done["rows"] += rows(connection, _events_files(written))
                for target, path in written.items():
                    warehouse.upload(path, target)
            # only once every merged file is in place
            warehouse.delete([part for parts in batch.values() for part in parts])
            done["merged"] += len(batch)
            done["parts"] += sum(len(parts) for parts in batch.values())
    finally:
        connection.close()
    return {**done, "left": len(work) - done["merged"]}


def write_site_days(
    connection: Any, rows: str, output: Path, pattern: str
) -> dict[tuple[int, str], Path]:
    """The rows of a query (`website_id`, `day` and the columns) as one Parquet file per
    site-day under a new folder of `output` (`pattern`: DuckDB's FILENAME_PATTERN): one row
    per hit id (the copies are equal), sorted by time. Each file by its (site, day)."""
    output.mkdir(parents=True, exist_ok=True)
    staging = output / f"staging-{uuid.uuid4().hex}"
    connection.execute(  # paths and names are ours, not a request's
        f"COPY (SELECT * FROM (SELECT DISTINCT ON (hit_id) * FROM ({rows})) "  # noqa: S608
        f"ORDER BY website_id, day, ts) TO '{staging}' (FORMAT parquet, "
        f"PARTITION_BY (website_id, day), FILENAME_PATTERN '{pattern}', "
        f"ROW_GROUP_SIZE {ROW_GROUP_ROWS})"
    )
    written: dict[tuple[int, str], Path] = {}
    for folder in staging.glob("website_id=*/day=*"):
        files = sorted(folder.glob("*.parquet"))
        if len(files) != 1:
            raise RuntimeError(f"{len(files)} files written for one site-day")
        written[schema.site_day(str(files[0]))] = files[0]
    return written
