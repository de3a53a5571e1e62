"""Compaction, in two levels, with DuckDB: the same code under `make serve` and in the
deployed CompactionFunction.

The landing layout does not depend on how many sites are active: the stream (Firehose
deployed, `LocalWarehouse.write` locally) writes whatever arrives into
`landing/hour=<YYYY-MM-DD-HH>/`, the hour of arrival.

- Hourly (`run()`), this module: every landing file present is read, its rows deduplicated
  among themselves (the same `hit_id`: a message delivered again sends its row again, and
  Firehose may retry a record) and written as one small file per site-day and run,
  `event_parts/website_id=<id>/day=<YYYY-MM-DD>/part-<run>.parquet`, sorted by time. It
  never reads nor rewrites a day's merged file: its work is the hour's rows, whatever the
  size of the days they fall in. A row already in a part or in the day's file may be
  written again (a hit delivered again hours later): readers keep one row per hit id across
  landing, parts and merged files (`raw`), and the daily merge keeps one.
- Daily (`run(merge=True)`, `merges`): a closed day's parts folded into its one
  `events/website_id=<id>/day=<YYYY-MM-DD>/data.parquet`, with the day's summaries.

The landing files are removed only after every part is in place, and parts only after the
merged file and its summaries are: a crash at any point leaves each row in landing, in
parts, in the merged file, or in several, never in none, and the next run redoes the work.

Bound: a query of N days of one site reads at most N merged files, the parts of the days
not merged yet (24 a day) and the landing files of the hour since the last run.

Before taking landing, the hourly run re-ingests the rows Firehose could not convert
(`reingest`), removes deleted websites' files and drops their rows (`deletions`). One run of
either level at a time, whatever the function's concurrency: a run holds the one lease
(`data.leases`, LEASE_SECONDS) or does nothing and says so, since two merges at once could
each put back a day's file without the other's rows, and a merge must not put back a file
a removal just deleted. Were a lease lost midway, an hourly run and a merge would still lose
nothing of each other's: the hourly run only adds parts under new names, and a merge deletes
only the parts it folded.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any, Final

from sitelens.analytics.warehouse import deletions, layout, merges, reingest, schema, summaries
from sitelens.core import clock, metrics
from sitelens.core.log import logger
from sitelens.data import leases, warehouse

LANDING: Final = layout.LANDING
COMPACTED: Final = layout.COMPACTED
PARTS: Final = layout.PARTS
FILE_NAME: Final = layout.FILE_NAME
MAX_LANDING_FILES = 2_000  # per run: many hours of Firehose's files (one per 5 minutes)
# site-days a backfill summarises a run (a busy site's day file takes about a second)
MAX_BACKFILL = 500
LEASE = "compaction"
# CompactionFunction's timeout (900 s) and a minute: a run killed midway blocks the next
# for at most this long (tests/unit/test_template.py checks it against the template).
LEASE_SECONDS = 960

landing_folder = layout.landing_folder
compacted_file = layout.compacted_file
part_file = layout.part_file


def landing_columns() -> list[tuple[str, str]]:
    """A landing row's columns: the partition keys are plain columns there."""
    return [*schema.PARTITIONS, *schema.COLUMNS]


def split(
    connection: Any,
    landing_files: Sequence[Path],
    output: Path,
    run_id: str,
    deleted: Collection[int] = (),
) -> dict[str, Path]:
    """The rows of landing files as one new part per site-day under `output`, named by the
    run (`layout.part_file`); each by where it belongs. Rows of `deleted` websites are left
    out; one row per hit id (the copies are equal), sorted by time within each part."""
    if not landing_files:
        return {}
    columns = ", ".join(name for name, _ in schema.COLUMNS)
    # files written before a column was added lack it: NULL there (`empty_relation`)
    landing = schema.empty_relation((*schema.PARTITIONS, *schema.COLUMNS))
    rows = (
        f"SELECT website_id, day, {columns} FROM (SELECT * FROM read_parquet("  # noqa: S608
        f"{layout.files_sql(landing_files)}, union_by_name = true) UNION ALL BY NAME {landing}) "
        f"WHERE {layout.kept_sql(deleted)}"
    )
    found = merges.write_site_days(connection, rows, output, "part")
    return {part_file(*site_day, run_id): path for site_day, path in found.items()}


def compact_folder(connection: Any, root: Path) -> dict[str, int]:
    """The hourly compaction of a warehouse on disk (`make serve`'s): deleted websites'
    files removed (`deletions`), its error files re-ingested (`reingest`), then every
    landing file present under `root` split into parts (but deleted websites' rows), then
    removed. What it did, counted."""
    _backfill_folder(connection, root)
    pending, deleted = deletions.in_folder(root)
    done = {"removed": deletions.remove_in_folder(root, pending)}
    done |= reingest.reingest_folder(connection, root, deleted)
    landing_files = sorted((root / LANDING).glob("hour=*/*.parquet"))
    if not landing_files:
        return {**done, "landing_files": 0, "partitions": 0, "rows": 0}
    work = root / "compaction"
    written = split(connection, landing_files, work, _run_id(), deleted)
    rows = merges.rows(connection, list(written.values()))
    for target, path in written.items():
        (root / target).parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, root / target)  # atomic: a reader sees the part whole or not at all
    for path in landing_files:  # only once every part is in place
        path.unlink(missing_ok=True)
    shutil.rmtree(work, ignore_errors=True)
    return {**done, "landing_files": len(landing_files), "partitions": len(written), "rows": rows}


def _run_id() -> str:
    """A run's name for its parts: its time (a reader sorts them by it) and a random tail."""
    return f"{clock.now().strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"


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


def run(merge: bool = False) -> dict[str, int]:
    """One compaction with the engine in use, `make serve`'s folder or the events bucket,
    under the lease: hourly (landing into parts), or with `merge` the daily merge of closed
    days' parts (`merges`); what it did, counted. A run that finds the lease held does
    nothing (`skipped`: 1), logged and counted (CompactionsSkipped)."""
    holder = leases.acquire(LEASE, LEASE_SECONDS)
    if holder is None:
        logger.info("compaction skipped: another run holds the lease", extra={"lease": LEASE})
        metrics.count("CompactionsSkipped")
        return {"skipped": 1, "landing_files": 0, "partitions": 0, "rows": 0}
    try:
        local = warehouse.local_engine()
        today = clock.now().date()
        if local is not None:
            return local.merge(today) if merge else local.compact()
        return merges.merge_bucket(today) if merge else _compact_bucket()
    finally:
        if not leases.release(LEASE, holder):  # it expired midway: another run may hold it
            logger.warning("compaction outlived its lease", extra={"lease": LEASE})


def _compact_bucket() -> dict[str, int]:
    """The hourly compaction of the events bucket: deleted websites' files removed
    (`deletions`), error files re-ingested (`reingest`); landing objects fetched to /tmp,
    split into parts (but deleted websites' rows), the parts put, and only then the landing
    objects deleted: a crash leaves landing to be split again."""
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
            written = split(connection, files, root / "parts", _run_id(), deleted)
            rows = merges.rows(connection, list(written.values()))
            for target, path in written.items():
                warehouse.upload(path, target)
    finally:
        connection.close()
    warehouse.delete(keys)  # only once every part is in place
    return {**done, "landing_files": len(keys), "partitions": len(written), "rows": rows}
