"""Compaction: landing files merged into one sorted, deduplicated Parquet file per site and
day, with DuckDB, the same code under `make serve` and in the deployed CompactionFunction.

The landing layout does not depend on how many sites are active: the stream (Firehose
deployed, `LocalWarehouse.write` locally) writes whatever arrives into
`landing/hour=<YYYY-MM-DD-HH>/`, the hour of arrival. Compaction takes every landing file
present, removes duplicate rows (the same `hit_id`: a message delivered again sends its
row again, and Firehose may retry a record), merges them with the site-days they touch,
and writes `events/website_id=<id>/day=<YYYY-MM-DD>/data.parquet` sorted by time, with
the day's summaries beside it (`summaries`: its visits and its pages). The
landing files are removed only after every merged file is in place, so a crash at any
point leaves each row in landing, in events, or in both, never in neither: queries read
both and keep one row per hit id (`sql`), and the next run redoes the merge.

Bound: a query of N days of one site reads at most N compacted files and the landing files
of the hours since the last run (one run an hour: a few files for the whole stack).

Before merging, a run re-ingests the rows Firehose could not convert (`reingest`), and
drops the rows of deleted websites (`deletions`). One run at a time, whatever the
function's concurrency: a run holds a lease (`data.leases`, LEASE_SECONDS) or does nothing
and says so, since two read-merge-write runs at once could each put back a file without
the other's rows.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any, Final

from sitelens.analytics.warehouse import deletions, layout, reingest, schema, summaries
from sitelens.core import metrics
from sitelens.core.log import logger
from sitelens.data import leases, warehouse

LANDING: Final = layout.LANDING
COMPACTED: Final = layout.COMPACTED
FILE_NAME: Final = layout.FILE_NAME
MAX_LANDING_FILES = 2_000  # per run: many hours of Firehose's files (one per 5 minutes)
# site-days a backfill summarises a run (a busy site's day file takes about a second)
MAX_BACKFILL = 500
ROW_GROUP_ROWS = 122_880  # DuckDB's default row group: min/max per group prune by time
LEASE = "compaction"
# CompactionFunction's timeout (900 s) and a minute: a run killed midway blocks the next
# for at most this long (tests/unit/test_template.py checks it against the template).
LEASE_SECONDS = 960

landing_folder = layout.landing_folder
compacted_file = layout.compacted_file


def landing_columns() -> list[tuple[str, str]]:
    """A landing row's columns: the partition keys are plain columns there."""
    return [*schema.PARTITIONS, *schema.COLUMNS]


def _files(paths: Sequence[Path]) -> str:
    return "[" + ", ".join(f"'{path}'" for path in paths) + "]"


def _kept(deleted: Collection[int]) -> str:
    """A predicate true on rows of websites not deleted (ids are numbers: formatted)."""
    return (
        f"website_id NOT IN ({', '.join(str(int(site)) for site in deleted)})"
        if deleted
        else "TRUE"
    )


def touched(
    connection: Any, landing_files: Sequence[Path], deleted: Collection[int] = ()
) -> list[tuple[int, str]]:
    """The (website id, day) partitions that rows in these landing files belong to, but
    those of `deleted` websites."""
    if not landing_files:
        return []
    found = connection.execute(
        f"SELECT DISTINCT website_id, day FROM read_parquet({_files(landing_files)}, "  # noqa: S608
        f"union_by_name = true) WHERE {_kept(deleted)} ORDER BY 1, 2"
    ).fetchall()
    return [(int(website_id), str(day)) for website_id, day in found]


def merge(
    connection: Any,
    landing_files: Sequence[Path],
    existing: dict[tuple[int, str], Path],
    output: Path,
    deleted: Collection[int] = (),
) -> dict[str, Path]:
    """Merge landing files and the existing compacted files of the partitions they touch
    into one new file per partition under `output`, and its summaries; returns each new
    file by where it belongs (`compacted_file`, `summaries.file`). Landing rows of
    `deleted` websites are left out.

    One row per hit id (the copies are equal), sorted by time within each file."""
    columns = ", ".join(name for name, _ in schema.COLUMNS)
    # names from the schema, paths and partitions of our own folders
    # files written before a column was added lack it: it is NULL there (`empty_relation`)
    landing = schema.empty_relation((*schema.PARTITIONS, *schema.COLUMNS))
    parts = [
        f"SELECT website_id, day, {columns} FROM (SELECT * FROM read_parquet("  # noqa: S608
        f"{_files(landing_files)}, union_by_name = true) UNION ALL BY NAME {landing}) "
        f"WHERE {_kept(deleted)}"
    ]
    parts += [
        f"SELECT CAST({website_id} AS BIGINT) AS website_id, '{day}' AS day, {columns} "  # noqa: S608
        f"FROM (SELECT * FROM read_parquet('{path}') "
        f"UNION ALL BY NAME {schema.empty_relation(schema.COLUMNS)})"
        for (website_id, day), path in sorted(existing.items())
    ]
    union = "\nUNION ALL\n".join(parts)
    output.mkdir(parents=True, exist_ok=True)
    staging = output / f"staging-{uuid.uuid4().hex}"
    connection.execute(  # paths and names are ours, not a request's
        f"COPY (SELECT * FROM (SELECT DISTINCT ON (hit_id) * FROM ({union})) "  # noqa: S608
        f"ORDER BY website_id, day, ts) TO '{staging}' (FORMAT parquet, "
        f"PARTITION_BY (website_id, day), FILENAME_PATTERN 'data', "
        f"ROW_GROUP_SIZE {ROW_GROUP_ROWS})"
    )
    written: dict[str, Path] = {}
    for folder in staging.glob("website_id=*/day=*"):
        files = sorted(folder.glob("*.parquet"))
        if len(files) != 1:
            raise RuntimeError(f"compaction wrote {len(files)} files for one partition")
        written[compacted_file(*schema.site_day(str(files[0])))] = files[0]
    beside = summaries.write(
        connection, list(written.values()), output / f"summaries-{uuid.uuid4().hex}"
    )
    return {**written, **beside}


def _events_files(written: dict[str, Path]) -> list[Path]:
    return [path for target, path in written.items() if target.startswith(COMPACTED + "/")]


def compact_folder(connection: Any, root: Path) -> dict[str, int]:
    """Compact a warehouse on disk (`make serve`'s): deleted websites' files removed
    (`deletions`), its error files re-ingested (`reingest`), then every landing file
    present under `root` merged into `root/events` (but deleted websites' rows), then
    removed. What it did, counted."""
    _backfill_folder(connection, root)
    pending, deleted = deletions.in_folder(root)
    done = {"removed": deletions.remove_in_folder(root, pending)}
    done |= reingest.reingest_folder(connection, root, deleted)
    landing_files = sorted((root / LANDING).glob("hour=*/*.parquet"))
    if not landing_files:
        return {**done, "landing_files": 0, "partitions": 0, "rows": 0}
    partitions = touched(connection, landing_files, deleted)
    existing = {
        partition: path
        for partition in partitions
        if (path := root / compacted_file(*partition)).exists()
    }
    work = root / "compaction"
    work.mkdir(exist_ok=True)
    written = merge(connection, landing_files, existing, work, deleted)
    merged = _events_files(written)
    rows = _rows(connection, merged)
    for target, path in written.items():
        (root / target).parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, root / target)  # atomic: a reader sees the old file or the new one
    for path in landing_files:  # only once every merged file is in place
        path.unlink(missing_ok=True)
    shutil.rmtree(work, ignore_errors=True)
    return {**done, "landing_files": len(landing_files), "partitions": len(merged), "rows": rows}


def _backfill_folder(connection: Any, root: Path) -> None:
    """Summaries for the compacted site-days of a folder that have none (compacted
    before summaries existed), written before any query could miss them."""
    lacking = [
        path
        for path in sorted((root / COMPACTED).glob("website_id=*/day=*/" + FILE_NAME))
        if not all(
            (root / summaries.file(name, *schema.site_day(str(path)))).exists()
            for name in summaries.COLUMNS
        )
    ]
    work = root / f"backfill-{uuid.uuid4().hex}"
    for target, path in summaries.write(connection, lacking, work).items():
        (root / target).parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, root / target)
    shutil.rmtree(work, ignore_errors=True)


def backfill_bucket() -> dict[str, int]:
    """Summaries for compacted site-days of the bucket that have none (compacted before
    summaries existed), up to MAX_BACKFILL a run: CompactionFunction invoked with
    `{"backfill": true}`, again until `left` is 0 (docs/operations.md)."""
    import duckdb

    have = {
        name: {schema.site_day(key) for key in warehouse.object_keys(name + "/", 10**7)}
        for name in summaries.COLUMNS
    }
    missing = [
        partition
        for key in warehouse.object_keys(COMPACTED + "/", 10**7)
        if any((partition := schema.site_day(key)) not in found for found in have.values())
    ]
    with tempfile.TemporaryDirectory(prefix="backfill-") as scratch:
        root = Path(scratch)
        files = [
            path
            for partition in missing[:MAX_BACKFILL]
            if warehouse.download(
                compacted_file(*partition), path := root / compacted_file(*partition)
            )
        ]
        connection = duckdb.connect(":memory:")
        try:
            for target, path in summaries.write(connection, files, root / "summaries").items():
                warehouse.upload(path, target)
        finally:
            connection.close()
    done = min(len(missing), MAX_BACKFILL)
    return {"summarised": done, "left": len(missing) - done}


def run() -> dict[str, int]:
    """One compaction with the engine in use: `make serve`'s folder, or the events bucket
    (CompactionFunction, hourly), under the lease; what it did, counted. A run that finds
    the lease held does nothing (`skipped`: 1), logged and counted (CompactionsSkipped)."""
    holder = leases.acquire(LEASE, LEASE_SECONDS)
    if holder is None:
        logger.info("compaction skipped: another run holds the lease", extra={"lease": LEASE})
        metrics.count("CompactionsSkipped")
        return {"skipped": 1, "landing_files": 0, "partitions": 0, "rows": 0}
    try:
        local = warehouse.local_engine()
        if local is not None:
            return local.compact()
        return _compact_bucket()
    finally:
        if not leases.release(LEASE, holder):  # it expired midway: another run may hold it
            logger.warning("compaction outlived its lease", extra={"lease": LEASE})


def _compact_bucket() -> dict[str, int]:
    """Deleted websites' files removed (`deletions`), error files re-ingested (`reingest`);
    landing objects and the compacted files they
    touch fetched to /tmp, merged (but deleted websites' rows), the merged files put back,
    and only then the landing objects deleted: a crash leaves landing to be merged again."""
    import duckdb

    connection = duckdb.connect(":memory:")
    try:
        with tempfile.TemporaryDirectory(prefix="compaction-") as scratch:
            pending, deleted = deletions.in_bucket()
            done = {"removed": deletions.remove_in_bucket(pending)}
            done |= reingest.reingest_bucket(connection, Path(scratch) / "errors", deleted)
            keys = warehouse.object_keys(LANDING + "/", MAX_LANDING_FILES)
            if not keys:
                return {**done, "landing_files": 0, "partitions": 0, "rows": 0}
            root = Path(scratch)
            files = [root / LANDING / f"{number}.parquet" for number in range(len(keys))]
            for key, path in zip(keys, files, strict=True):
                warehouse.download(key, path)
            existing = {
                partition: path
                for partition in touched(connection, files, deleted)
                if warehouse.download(
                    compacted_file(*partition), path := root / compacted_file(*partition)
                )
            }
            written = merge(connection, files, existing, root / "merged", deleted)
            merged = _events_files(written)
            rows = _rows(connection, merged)
            for target, path in written.items():
                warehouse.upload(path, target)
    finally:
        connection.close()
    warehouse.delete(keys)  # only once every merged file is in place
    return {**done, "landing_files": len(keys), "partitions": len(merged), "rows": rows}


def _rows(connection: Any, files: list[Path]) -> int:
    if not files:
        return 0
    found = connection.execute(
        f"SELECT COUNT(*) FROM read_parquet({_files(files)})"  # noqa: S608
    ).fetchone()
    return int(found[0])
