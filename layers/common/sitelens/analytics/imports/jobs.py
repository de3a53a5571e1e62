"""Imports as jobs: a request stores the file (or names the customer's object) and queues a
task of the tasks queue; the task reads the file into the imported tables (`formats`) and
writes them as the import's own Parquet files, then marks it done (docs/imports.md).

Idempotent by identity: the files are keyed by the import, so a task delivered again after
a crash writes the same files; one delivered after the import finished does nothing. The
query API reads only the tables of imports marked done (`queried`)."""

from __future__ import annotations

import json
import secrets
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import Field

from sitelens.analytics.exports import BUCKET_PATTERN, ROLE_ARN_PATTERN, external_id
from sitelens.analytics.imports import formats
from sitelens.analytics.imports.events import Unreadable
from sitelens.analytics.imports.tables import TABLES
from sitelens.core import clock, errors, metrics, task_batches
from sitelens.core.log import logger
from sitelens.data import customer_buckets, queues
from sitelens.data import imports as stored_imports
from sitelens.data import websites as stored_websites
from sitelens.records.inputs import Input

STATUSES: Final = ("queued", "running", "done", "failed")
# An object read from the customer's bucket: tests/bench/test_imports.py reads the slowest
# format, GA4 BigQuery rows (0.45 KB each), at about 11,600 rows (5 MB) a second on a
# loaded shared core, so 256 MB is about 50 s of the tasks function's 300 s (less its
# drain's 90 s reserve); larger objects are refused, saying to split them.
MAX_OBJECT_BYTES: Final = 256 * 1024 * 1024
KEY_PATTERN: Final = r"^[^\x00-\x1f]{1,1024}$"


class Source(Input):
    """An object of the customer's bucket and the role that may read it."""

    role_arn: Annotated[str, Field(max_length=2048, pattern=ROLE_ARN_PATTERN)]
    bucket: Annotated[str, Field(pattern=BUCKET_PATTERN)]
    key: Annotated[str, Field(pattern=KEY_PATTERN)]


class ImportCreate(Input):
    """`format` when it should not be found from the content; `source` without a file."""

    format: Literal["plausible", "ga4_report", "ga4_bigquery", "umami"] | None = None
    source: Source | None = None


def request_import(
    account: str, website_id: int, fields: ImportCreate, file: bytes | None, filename: str = ""
) -> dict[str, Any]:
    """A new import of the account's website from an uploaded file or the customer's
    object, queued; 404 when the website is not theirs, 422 with neither or both."""
    if stored_websites.get(account, website_id) is None:
        raise errors.NotFound()
    if (file is None) == (fields.source is None):
        raise errors.Invalid.field(
            "source", "Send either a file (multipart/form-data `file`) or a source, not both."
        )
    import_id = int(time.time() * 1000) * 1000 + secrets.randbelow(1000)
    now = clock.iso(clock.now())
    record: dict[str, Any] = {
        "account": account,
        "id": import_id,
        "website_id": website_id,
        "format": fields.format or "",
        "status": "queued",
        "progress": 0,
        "rows": 0,
        "filename": filename[:255],
        "created_at": now,
        "updated_at": now,
    }
    if file is not None:
        record["upload_key"] = stored_imports.upload_key(website_id, import_id)
        stored_imports.put_upload(record["upload_key"], file)
    else:
        assert fields.source is not None
        record["source"] = json.dumps(fields.source.model_dump())  # stored as text
    stored_imports.create(record)
    queues.send_import(account, import_id)
    return show(record)


def _owned(account: str, website_id: int, import_id: int) -> dict[str, Any]:
    record = stored_imports.get(account, import_id)
    if record is None or int(record["website_id"]) != website_id:
        raise errors.NotFound()
    return record


def get(account: str, website_id: int, import_id: int) -> dict[str, Any]:
    """The account's import of this website; 404 else."""
    return show(_owned(account, website_id, import_id))


def list_of(account: str, website_id: int) -> list[dict[str, Any]]:
    """The website's imports, newest first; 404 when the website is not the account's."""
    if stored_websites.get(account, website_id) is None:
        raise errors.NotFound()
    return [show(record) for record in stored_imports.of_website(account, website_id)]


def delete(account: str, website_id: int, import_id: int) -> None:
    """Remove the import's rows from the warehouse, then its record; 404 if not theirs."""
    record = _owned(account, website_id, import_id)
    stored_imports.drop_tables(website_id, import_id)
    if record.get("upload_key"):
        stored_imports.drop_upload(record["upload_key"])
    stored_imports.remove(account, import_id)


def show(record: dict[str, Any]) -> dict[str, Any]:
    """What the API answers of an import."""
    source = json.loads(record["source"]) if record.get("source") else None
    return {
        "id": int(record["id"]),
        "website_id": int(record["website_id"]),
        "format": record.get("format") or None,
        "status": record["status"],
        "progress": float(record.get("progress") or 0),
        "rows": int(record.get("rows") or 0),
        "from": record.get("from"),
        "to": record.get("to"),
        "tables": [t for t in str(record.get("tables") or "").split(",") if t],
        "filename": record.get("filename") or None,
        "source": {**source, "external_id": external_id(record["account"])} if source else None,
        "error": record.get("error"),
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
    }


# -- the task ---------------------------------------------------------------------------


def run_batch(records: list[dict[str, Any]]) -> list[str]:
    """Run the import tasks of a batch (SQS records); the message ids to deliver again. An
    import whose file cannot be read is marked failed, saying why, and not retried."""
    return task_batches.run_each(records, queues.import_task, run, "ImportsFailed", "import")


def run(account: str, import_id: int) -> None:
    """Read the import's file into its tables, store them, and mark it done (or failed)."""
    record = stored_imports.get(account, import_id)
    if record is None or record["status"] in ("done", "failed"):
        return  # delivered again after it finished (or was deleted): nothing to write
    website_id = int(record["website_id"])
    stored_imports.set_fields(account, import_id, {"status": "running", "updated_at": _now()})
    with tempfile.TemporaryDirectory(prefix="sitelens-import-") as folder:
        work = Path(folder)
        try:
            found = _read(account, record, work)
        except Unreadable as unreadable:
            _fail(account, import_id, str(unreadable), "unreadable")
            _drop_upload(record)
            return
        except Exception as err:
            if not customer_buckets.delivery_failed(err):
                raise
            why = (
                f"The object could not be read ({type(err).__name__}): check the role's trust "
                "policy, its ExternalId and its s3:GetObject on the key (docs/imports.md)."
            )
            _fail(account, import_id, why, "source")
            return
        for table in found["tables"]:
            stored_imports.store_table(work / f"{table}.parquet", website_id, import_id, table)
    done = {**_stored(found), "status": "done", "progress": 1, "updated_at": _now()}
    if stored_imports.set_fields(account, import_id, done):
        _drop_upload(record)
    metrics.count("ImportRows", int(found["rows"]))


def _read(account: str, record: dict[str, Any], work: Path) -> dict[str, Any]:
    """The import's file read into its tables' Parquet files in `work`; what its record
    says of them (format, rows, from, to, tables). Unreadable when it is not its format,
    has no row, or overlaps another import of the site."""
    path = work / "source"
    if record.get("upload_key"):
        if not stored_imports.fetch_upload(record["upload_key"], path):
            raise Unreadable("The uploaded file is gone: send it again.")
    else:
        source = json.loads(record["source"])
        size = customer_buckets.fetch(
            source["role_arn"],
            external_id(account),
            source["bucket"],
            source["key"],
            path,
            MAX_OBJECT_BYTES,
        )
        if size is None:
            raise Unreadable(f"The object is larger than {MAX_OBJECT_BYTES} bytes: split it.")
    stored_imports.set_fields(account, int(record["id"]), {"progress": 0.2, "updated_at": _now()})
    found = read_file(path, record.get("format") or None, work)
    _refuse_overlap(account, record, found["from"], found["to"])
    return found


def read_file(path: Path, file_format: str | None, work: Path) -> dict[str, Any]:
    """Read a file (of `file_format`, or the one found from its content) into the imported
    tables, each written as `work/<table>.parquet`: its format, rows read, first and last
    day and the tables written. Unreadable when it is not its format or has no row."""
    file_format = file_format or formats.detect(path)
    import duckdb

    connection = duckdb.connect(":memory:")
    try:
        connection.execute("SET TimeZone = 'UTC'")
        try:
            rows = formats.load(connection, path, file_format, work)
        except duckdb.Error as err:
            raise Unreadable(f"The file cannot be read as {file_format}: {err}") from None
        spans = [
            connection.execute(f"SELECT min(date), max(date), COUNT(*) FROM {t}").fetchone()  # noqa: S608
            for t in TABLES
        ]
        tables = [t for t, span in zip(TABLES, spans, strict=True) if span and span[2]]
        if not tables:
            raise Unreadable("The file holds no row to import.")
        first = min(span[0] for span in spans if span and span[2]).isoformat()
        last = max(span[1] for span in spans if span and span[2]).isoformat()
        for table in tables:
            target = work / f"{table}.parquet"
            connection.execute(
                f"COPY (SELECT * FROM {table} ORDER BY ALL) TO '{target}' (FORMAT parquet)"  # noqa: S608
            )
    finally:
        connection.close()
    return {"format": file_format, "rows": rows, "from": first, "to": last, "tables": tables}


def _stored(found: dict[str, Any]) -> dict[str, Any]:
    """What the record keeps of a read file (its tables as one text)."""
    return {**found, "tables": ",".join(found["tables"])}


def _refuse_overlap(account: str, record: dict[str, Any], first: str, last: str) -> None:
    """Two imports of the same days would count them twice: the later one is refused."""
    for other in stored_imports.of_website(account, int(record["website_id"])):
        if other["id"] == record["id"] or other["status"] != "done":
            continue
        if other["from"] <= last and first <= other["to"]:
            raise Unreadable(
                f"The file's days ({first} to {last}) overlap import {other['id']} "
                f"({other['from']} to {other['to']}): delete that import first."
            )


def _drop_upload(record: dict[str, Any]) -> None:
    """The uploaded file, once its import is finished: read, it is no longer needed."""
    if record.get("upload_key"):
        stored_imports.drop_upload(record["upload_key"])


def _fail(account: str, import_id: int, why: str, reason: str) -> None:
    logger.warning("import refused", extra={"import_id": import_id, "reason": reason})
    metrics.count("ImportsFailed", 1, reason=reason)
    stored_imports.set_fields(
        account, import_id, {"status": "failed", "error": why, "updated_at": _now()}
    )


def _now() -> str:
    return clock.iso(clock.now())
