"""Exports: a website's raw events of a date range as one Parquet or CSV file, made by a task
of the tasks queue (`run_batch`) and fetched by its download URL, or delivered to the
customer's own bucket (docs/exports.md).

The file holds every counted hit of the range once: the warehouse's rows (`schema.COLUMNS`,
with `website_id` and `day` before them and `schema_version` after), read by DuckDB from the
site's own files (merged days, hourly parts, landing), one row per hit id, ordered by
time then hit id. The same rows give the same bytes: a task delivered twice, or retried
after a crash, writes the same object under the same key.
"""

from __future__ import annotations

import json
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import BeforeValidator, Field

from sitelens.analytics.warehouse import layout, schema
from sitelens.core import clock, errors, metrics, task_batches
from sitelens.core.errors import FieldError
from sitelens.core.log import logger
from sitelens.data import customer_buckets, queues
from sitelens.data import exports as stored_exports
from sitelens.data import websites as stored_websites
from sitelens.records.inputs import Input

# The rows' layout in an export: the warehouse's columns as of this version. Bumped (and
# docs/exports.md's table with it) whenever `schema.COLUMNS` changes; a test holds the two.
SCHEMA_VERSION: Final = 1
SCHEMA_COLUMNS: Final = 31  # len(schema.COLUMNS) at SCHEMA_VERSION
MAX_DAYS: Final = 366  # a year a file; a longer history is several exports
# A file's rows: tests/bench/test_exports.py writes about 40,000 rows a second on a shared
# core, so 5M rows is about two minutes of the tasks function's 300 s (less its drain's
# 90 s reserve); more fails the export, saying to split the range.
MAX_ROWS: Final = 5_000_000
FORMATS: Final = ("parquet", "csv")
STATUSES: Final = ("queued", "running", "done", "failed")
ROLE_ARN_PATTERN: Final = r"^arn:aws[a-z-]*:iam::[0-9]{12}:role/[A-Za-z0-9+=,.@/_-]+$"
BUCKET_PATTERN: Final = r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"


def _day(value: Any) -> date:
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise FieldError("The date must be a day, YYYY-MM-DD.")


Day = Annotated[date, BeforeValidator(_day)]


class Delivery(Input):
    """The customer's bucket and the role that may write to it (docs/exports.md)."""

    role_arn: Annotated[str, Field(max_length=2048, pattern=ROLE_ARN_PATTERN)]
    bucket: Annotated[str, Field(pattern=BUCKET_PATTERN)]
    prefix: Annotated[str, Field(max_length=512, pattern=r"^[^\x00-\x1f]*$")] = ""


class ExportCreate(Input):
    """`from` and `to`: UTC days, both included."""

    first: Annotated[Day, Field(alias="from")]
    last: Annotated[Day, Field(alias="to")]
    format: Literal["parquet", "csv"] = "parquet"
    delivery: Delivery | None = None


def external_id(account: str) -> str:
    """The ExternalId Sitelens gives when assuming a customer's role: theirs alone."""
    return f"sitelens-{account}"


def request_export(account: str, website_id: int, fields: ExportCreate) -> dict[str, Any]:
    """A new export of the account's website, queued; 404 when the website is not theirs,
    422 on a range that is backwards, in the future or longer than MAX_DAYS."""
    if stored_websites.get(account, website_id) is None:
        raise errors.NotFound()
    today = clock.now().date()
    if fields.last < fields.first:
        raise errors.Invalid.field("to", "The to date must not be before the from date.")
    if fields.last > today:
        raise errors.Invalid.field("to", "The to date must not be after today (UTC).")
    if (fields.last - fields.first).days + 1 > MAX_DAYS:
        raise errors.Invalid.field("to", f"An export covers at most {MAX_DAYS} days.")
    now = clock.iso(clock.now())
    export_id = int(time.time() * 1000) * 1000 + int.from_bytes(_random(2), "big") % 1000
    record: dict[str, Any] = {
        "account": account,
        "id": export_id,
        "website_id": website_id,
        "from": fields.first.isoformat(),
        "to": fields.last.isoformat(),
        "format": fields.format,
        "status": "queued",
        "progress": 0,
        "rows": 0,
        "schema_version": SCHEMA_VERSION,
        "created_at": now,
        "updated_at": now,
    }
    if fields.delivery is not None:
        record["delivery"] = json.dumps(fields.delivery.model_dump())  # stored as text
    stored_exports.create(record)
    queues.send_export(account, export_id)
    return show(record)


def _random(size: int) -> bytes:
    import secrets

    return secrets.token_bytes(size)


def get(account: str, website_id: int, export_id: int) -> dict[str, Any]:
    """The account's export of this website, with its download URL once done; 404 else."""
    record = stored_exports.get(account, export_id)
    if record is None or int(record["website_id"]) != website_id:
        raise errors.NotFound()
    if record["status"] != "done":
        return show(record)
    key = record["key"]
    return show(record, stored_exports.download_url(key), stored_exports.local_path(key))


def show(record: dict[str, Any], url: str | None = None, path: str | None = None) -> dict[str, Any]:
    """What the API answers of an export; `url` (and under `make serve` `path`) once done."""
    shown = {
        "id": int(record["id"]),
        "website_id": int(record["website_id"]),
        "from": record["from"],
        "to": record["to"],
        "format": record["format"],
        "status": record["status"],
        "progress": float(record.get("progress") or 0),
        "rows": int(record.get("rows") or 0),
        "schema_version": int(record["schema_version"]),
        "url": url,
        "path": path,
        "error": record.get("error"),
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
    }
    delivery = _delivery(record)
    if delivery:
        shown["delivery"] = {
            **delivery,
            "external_id": external_id(record["account"]),
            "key": _delivered_key(record),
        }
    return shown


def _delivery(record: dict[str, Any]) -> dict[str, str] | None:
    """The export's delivery (stored as JSON text), or None."""
    stored = record.get("delivery")
    return json.loads(stored) if stored else None


def _delivered_key(record: dict[str, Any]) -> str:
    prefix = str((_delivery(record) or {}).get("prefix") or "").strip("/")
    name = stored_exports.object_key(record["website_id"], record["id"], record["format"])
    return f"{prefix}/{name}" if prefix else name


# -- the task ---------------------------------------------------------------------------


def run_batch(records: list[dict[str, Any]]) -> list[str]:
    """Run the export tasks of a batch (SQS records); the message ids to deliver again.
    An export already done is not written again; one that fails for the customer's reason
    (too many rows, their role or bucket refused) is marked failed, not retried."""
    return task_batches.run_each(records, queues.export_task, run, "ExportsFailed", "export")


def run(account: str, export_id: int) -> None:
    """Make the export's file, put it where its URL points and into the customer's bucket."""
    record = stored_exports.get(account, export_id)
    if record is None or record["status"] in ("done", "failed"):
        return  # delivered again after it finished: nothing to write
    stored_exports.set_fields(account, export_id, {"status": "running", "updated_at": _now()})
    first, last = date.fromisoformat(record["from"]), date.fromisoformat(record["to"])
    days = [(first + timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]
    key = stored_exports.object_key(record["website_id"], export_id, record["format"])
    with tempfile.TemporaryDirectory(prefix="sitelens-export-") as folder:
        work = Path(folder)
        folders = [
            f"{kind}/website_id={int(record['website_id'])}/day={day}"
            for day in days
            for kind in (layout.COMPACTED, layout.PARTS)
        ]
        files = stored_exports.site_files(folders, layout.LANDING, work / "in")
        stored_exports.set_fields(account, export_id, {"progress": 0.5, "updated_at": _now()})
        out = work / f"events.{record['format']}"
        try:
            rows = write_file(files, out, int(record["website_id"]), first, last, record["format"])
            stored_exports.store(out, key)
            delivery = _delivery(record)
            if delivery:
                customer_buckets.deliver(
                    out,
                    delivery["role_arn"],
                    external_id(account),
                    delivery["bucket"],
                    _delivered_key(record),
                )
        except Refused as refused:
            _fail(account, export_id, str(refused), "refused")
            return
        except Exception as err:
            if not customer_buckets.delivery_failed(err):
                raise
            why = (
                f"The delivery was refused ({type(err).__name__}): check the role's trust "
                "policy, its ExternalId and its s3:PutObject on the bucket (docs/exports.md)."
            )
            _fail(account, export_id, why, "delivery")
            return
    done = {"status": "done", "progress": 1, "rows": rows, "key": key, "updated_at": _now()}
    stored_exports.set_fields(account, export_id, done)
    metrics.count("ExportRows", rows)


class Refused(Exception):
    """An export that cannot be made as asked: its message says what to change."""


def _fail(account: str, export_id: int, why: str, reason: str) -> None:
    logger.warning("export refused", extra={"export_id": export_id, "reason": reason})
    metrics.count("ExportsFailed", 1, reason=reason)
    stored_exports.set_fields(
        account, export_id, {"status": "failed", "error": why, "updated_at": _now()}
    )


def _now() -> str:
    return clock.iso(clock.now())


def write_file(
    files: list[Path], out: Path, website_id: int, first: date, last: date, file_format: str
) -> int:
    """Write the site's rows of the days `first` to `last` (UTC) found in these files to
    `out`, one row per hit id, by time then hit id; how many. Refused over MAX_ROWS."""
    import duckdb

    columns = ", ".join(schema.COLUMN_NAMES)
    connection = duckdb.connect(":memory:")
    try:
        connection.execute("SET TimeZone = 'UTC'")
        connection.execute("SET preserve_insertion_order = true")
        if files:
            typed = schema.empty_relation((*schema.PARTITIONS, *schema.COLUMNS))
            # our paths; rows of files that lack a later column get it NULL
            source = (
                f"SELECT * FROM read_parquet({layout.files_sql(files)}, union_by_name = true, "  # noqa: S608
                "hive_partitioning = false) "
                f"UNION ALL BY NAME {typed}"
            )
        else:
            source = schema.empty_relation((*schema.PARTITIONS, *schema.COLUMNS))
        start = datetime.combine(first, datetime.min.time(), UTC).replace(tzinfo=None)
        end = start + timedelta(days=(last - first).days + 1)
        connection.execute(
            f"CREATE TEMP TABLE export AS SELECT CAST({int(website_id)} AS BIGINT) AS website_id, "  # noqa: S608
            f"strftime(ts, '%Y-%m-%d') AS day, {columns}, "
            f"CAST({SCHEMA_VERSION} AS INTEGER) AS schema_version "
            f"FROM ({source}) AS found "
            # landing rows carry their site; a site-day folder's rows (no column) are its own
            f"WHERE coalesce(website_id, {int(website_id)}) = {int(website_id)} "
            f"AND ts >= TIMESTAMP '{start}' "
            f"AND ts < TIMESTAMP '{end}' "
            "QUALIFY ROW_NUMBER() OVER (PARTITION BY hit_id ORDER BY ts) = 1"
        )
        found = connection.execute("SELECT COUNT(*) FROM export").fetchone()
        rows = int(found[0]) if found else 0
        if rows > MAX_ROWS:
            raise Refused(
                f"The range holds {rows} events, more than {MAX_ROWS} an export: "
                "split it into shorter ranges."
            )
        options = "FORMAT parquet, COMPRESSION zstd" if file_format == "parquet" else "HEADER"
        copy = f"COPY (SELECT * FROM export ORDER BY ts, hit_id) TO '{out}' ({options})"  # noqa: S608
        connection.execute(copy)  # our temporary path
        return rows
    finally:
        connection.close()
