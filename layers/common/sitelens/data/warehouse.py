"""The raw-event warehouse: rows in through Amazon Data Firehose, files on S3, SQL out
through Athena.

Deployed, `put` sends rows as JSON lines packed into Firehose records (`pack`: up to
`RECORD_BYTES` each, since Firehose bills a record rounded up to 5 KB) to the stream, which
splits each record into its JSON documents (`documents`), converts them to Parquet with the
landing table's schema and writes them to S3 under
`landing/hour=<YYYY-MM-DD-HH>/`, whatever their site; the compaction
(`analytics.warehouse.compaction`) lists, fetches, puts and deletes files of the bucket
through `object_keys`, `download`, `upload`, `put_text` and `delete`; `run` executes a
statement in the Athena workgroup and reads its rows, or on ClickHouse (`data.clickhouse`,
under the same bounds) when the deployment chose it (SITELENS_WAREHOUSE_ENGINE; its rows
then land under `clickhouse-landing/`, which `analytics.warehouse.ingest` inserts).
`make serve` replaces them with its local warehouse (`use`): the same layout on disk, the
same compaction, queried by DuckDB (or chDB). The
SQL dialect goes with the engine (`dialect`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, Final

from sitelens.core import errors
from sitelens.core.config import settings
from sitelens.data import clickhouse, transactions
from sitelens.data.clients import client

MAX_QUERY_SECONDS: Final = 20.0  # within API Gateway's 29 s, with room to answer
MAX_SCANNED_BYTES: Final = 10 * 1024**3  # per query; the workgroup enforces it too
_POLL_SECONDS: Final = (0.1, 0.2, 0.4, 0.8, 1.0)
_FIREHOSE_BATCH: Final = 500  # records per PutRecordBatch
_FIREHOSE_BATCH_BYTES: Final = 4 * 1024**2  # bytes of records per PutRecordBatch
RECORD_BYTES: Final = 1_000 * 1024  # Firehose's most per record (before base64)
_FIREHOSE_ATTEMPTS: Final = 4  # then the messages come back, and their rows are sent again
MAX_RESULT_ROWS: Final = 10_001  # one page of the API and the total-rows check

Rows = Sequence[Sequence[Any]]


class RowsRefused(RuntimeError):
    """Records the stream still refused after the last attempt: `positions` are those of
    their rows in what `put` was given (every row of a refused record); the others landed."""

    def __init__(self, records: int, positions: frozenset[int]) -> None:
        super().__init__(f"Firehose refused {records} records {_FIREHOSE_ATTEMPTS} times")
        self.positions = positions


@dataclass(frozen=True)
class Record:
    """One Firehose record: rows as JSON lines one after another, and which rows of a
    `put` they are (positions `first` to `first + rows - 1`)."""

    data: bytes
    first: int
    rows: int


class TooExpensive(errors.ApiError):
    """422: the query would read or take more than the documented bounds."""

    status = 422

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.message = {"query": [sentence]}


@dataclass(frozen=True)
class LocalEngine:
    """What `make serve` gives `use`: its SQL dialect, a runner and a writer."""

    sql_dialect: str  # SQLGlot's name, e.g. "duckdb"
    query: Callable[[str], Rows]
    store: Callable[[Iterable[Mapping[str, Any]]], int]
    compact: Callable[[], dict[str, int]] = lambda: {}
    # a file of the warehouse's folder, written with its text (a deleted website's tombstone)
    mark_deleted: Callable[[str], None] = lambda path: None
    # the stream's stand-in (make serve): given the packed records, split as Firehose does;
    # the rows that landed. Without one, `store` takes the rows (tests' stand-ins).
    receive: Callable[[Sequence[bytes]], int] | None = None
    # the daily merge of the days before the one given (`analytics.warehouse.merges`)
    merge: Callable[[date], dict[str, int]] = lambda today: {}
    # the folder of its files (make serve): exports read a site's files there in place
    root: Path | None = None
    # a finished file put at a key of its folder (make serve's crawl files: `data.crawls`)
    place: Callable[[Path, str], None] | None = None


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]  # Glue/Hive timestamp text
    raise TypeError(type(value).__name__)


def pack(rows: Iterable[Mapping[str, Any]]) -> list[Record]:
    """Rows as Firehose records, in order: JSON lines (timestamps as Glue reads them), as
    many to a record as fit in `RECORD_BYTES`. Firehose's conversion (OpenXJsonSerDe) reads
    every JSON document of a record as a row."""
    records: list[Record] = []
    lines: list[bytes] = []
    size = first = 0
    for position, row in enumerate(rows):
        line = (json.dumps(row, default=_json_default, separators=(",", ":")) + "\n").encode()
        if lines and size + len(line) > RECORD_BYTES:
            records.append(Record(b"".join(lines), first, len(lines)))
            lines, size, first = [], 0, position
        lines.append(line)
        size += len(line)
    if lines:
        records.append(Record(b"".join(lines), first, len(lines)))
    return records


def documents(data: bytes) -> tuple[list[tuple[Any, bytes]], bytes]:
    """The JSON documents of `data`, one after another (whitespace or not between them),
    each with its own bytes, as Firehose splits a record; and the bytes from the first that
    is not JSON on (b"" when none)."""
    text = data.decode("utf-8", errors="replace")
    decoder = json.JSONDecoder()
    found: list[tuple[Any, bytes]] = []
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return found, b""
        try:
            value, end = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            return found, text[at:].encode()
        found.append((value, text[at:end].encode()))
        at = end


def _firehose_put(records: Sequence[Record]) -> int:
    """Send records to the stream; the failed records of a batch are sent again, backing off,
    and RowsRefused, once every batch was sent, for those still refused (their rows'
    messages come back)."""
    stream = settings().events_stream
    refused: list[Record] = []
    for batch in _firehose_batches(records):
        for _ in transactions.attempts(_FIREHOSE_ATTEMPTS):
            answer = client("firehose").put_record_batch(
                DeliveryStreamName=stream, Records=[{"Data": record.data} for record in batch]
            )
            if not answer.get("FailedPutCount"):
                break
            batch = [
                record
                for record, result in zip(batch, answer["RequestResponses"], strict=True)
                if result.get("ErrorCode")
            ]
        else:
            refused += batch
    if refused:
        positions = {
            n for record in refused for n in range(record.first, record.first + record.rows)
        }
        raise RowsRefused(len(refused), frozenset(positions))
    return sum(record.rows for record in records)


def _firehose_batches(records: Sequence[Record]) -> Iterator[list[Record]]:
    """The records as PutRecordBatch calls, in order: at most `_FIREHOSE_BATCH` records and
    `_FIREHOSE_BATCH_BYTES` bytes a call (four full records)."""
    batch: list[Record] = []
    size = 0
    for record in records:
        if batch and (
            len(batch) == _FIREHOSE_BATCH or size + len(record.data) > _FIREHOSE_BATCH_BYTES
        ):
            yield batch
            batch, size = [], 0
        batch.append(record)
        size += len(record.data)
    if batch:
        yield batch


def object_keys(prefix: str, limit: int, after: str = "") -> list[str]:
    """The keys of up to `limit` objects under `prefix` of the events bucket, in order
    (those sorting after `after` only, when given)."""
    keys: list[str] = []
    request = {"Bucket": settings().events_bucket, "Prefix": prefix}
    if after:
        request["StartAfter"] = after
    while len(keys) < limit:
        page = client("s3").list_objects_v2(**request)
        keys += [item["Key"] for item in page.get("Contents", []) if item["Size"] > 0]
        if not page.get("IsTruncated"):
            break
        request["ContinuationToken"] = page["NextContinuationToken"]
    return keys[:limit]


def download(key: str, path: Path) -> bool:
    """Copy an object of the events bucket to `path`; False when there is none."""
    from botocore.exceptions import ClientError

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        client("s3").download_file(settings().events_bucket, key, str(path))
    except ClientError as err:
        if err.response.get("Error", {}).get("Code") in ("404", "NoSuchKey"):
            return False
        raise
    return True


def upload(path: Path, key: str) -> None:
    """Put a file into the events bucket under `key` (replacing it at once for readers)."""
    client("s3").upload_file(str(path), settings().events_bucket, key)


def put_text(key: str, text: str) -> None:
    """Put a small object into the events bucket under `key` (a tombstone)."""
    client("s3").put_object(Bucket=settings().events_bucket, Key=key, Body=text.encode())


def delete(keys: Sequence[str]) -> None:
    """Remove objects of the events bucket, 1,000 a request."""
    for start in range(0, len(keys), 1000):
        client("s3").delete_objects(
            Bucket=settings().events_bucket,
            Delete={"Objects": [{"Key": key} for key in keys[start : start + 1000]]},
        )


def _athena_run(sql: str) -> Rows:
    """The rows of a statement, waiting at most `MAX_QUERY_SECONDS`; a query that runs
    longer is stopped and refused as too expensive."""
    execution = client("athena").start_query_execution(
        QueryString=sql,
        WorkGroup=settings().athena_workgroup,
        QueryExecutionContext={"Database": settings().events_database},
    )["QueryExecutionId"]
    deadline = time.monotonic() + MAX_QUERY_SECONDS
    attempt = 0
    while True:
        state = client("athena").get_query_execution(QueryExecutionId=execution)
        status = state["QueryExecution"]["Status"]
        if status["State"] == "SUCCEEDED":
            break
        if status["State"] in ("FAILED", "CANCELLED"):
            reason = status.get("StateChangeReason", "")
            if "bytes scanned" in reason.lower():  # the workgroup's per-query cutoff
                raise TooExpensive("The query would read too much: narrow its date range.")
            raise RuntimeError(f"Athena query {execution} {status['State']}: {reason}")
        if time.monotonic() > deadline:
            client("athena").stop_query_execution(QueryExecutionId=execution)
            raise TooExpensive(
                f"The query took more than {MAX_QUERY_SECONDS:g} s: narrow its date range, "
                "its websites or its dimensions."
            )
        time.sleep(_POLL_SECONDS[min(attempt, len(_POLL_SECONDS) - 1)])
        attempt += 1
    rows: list[list[Any]] = []
    token: dict[str, str] = {}
    while len(rows) < MAX_RESULT_ROWS:
        page = client("athena").get_query_results(QueryExecutionId=execution, **token)
        result = page["ResultSet"]
        types = [column["Type"] for column in result["ResultSetMetadata"]["ColumnInfo"]]
        # The first row of a SELECT's results holds the column names, as text whatever
        # the column's type: left out before typing.
        for raw in result["Rows"][0 if token else 1 :]:
            cells = [cell.get("VarCharValue") for cell in raw["Data"]]
            rows.append([_typed(cell, kind) for cell, kind in zip(cells, types, strict=True)])
        if "NextToken" not in page:
            break
        token = {"NextToken": page["NextToken"]}
    return rows


def _typed(text: str | None, kind: str) -> Any:
    if text is None:
        return None
    if kind in ("bigint", "integer", "smallint", "tinyint"):
        return int(text)
    if kind in ("double", "float", "real", "decimal"):
        return float(text)
    return text


_local: LocalEngine | None = None


def use(local: LocalEngine | None) -> None:
    """Run and store with `local` instead of Athena and Firehose (make serve; None: undo)."""
    global _local
    _local = local


def dialect() -> str:
    """SQLGlot's name of the SQL the engine in use speaks: "athena" or "clickhouse"
    deployed (SITELENS_WAREHOUSE_ENGINE, the same names)."""
    return _local.sql_dialect if _local else settings().warehouse_engine


def _clickhouse_run(sql: str) -> Rows:
    """The rows of a statement on ClickHouse, under Athena's bounds (`TooExpensive`)."""
    limits = {"max_execution_time": MAX_QUERY_SECONDS, "max_bytes_to_read": MAX_SCANNED_BYTES}
    try:
        return clickhouse.run(sql, limits)[:MAX_RESULT_ROWS]
    except Exception as err:
        if clickhouse.stopped_by_limits(err):
            raise TooExpensive(
                "The query would read or take too much: narrow its date range, "
                "its websites or its dimensions."
            ) from err
        raise


def run(sql: str) -> Rows:
    """The rows of a statement on the engine in use."""
    if _local:
        return _local.query(sql)
    if settings().warehouse_engine == "clickhouse":
        return _clickhouse_run(sql)
    return _athena_run(sql)


def put(rows: Iterable[Mapping[str, Any]]) -> int:
    """Store raw event rows with the engine in use, packed into records (`pack`) for the
    stream or its stand-in; returns how many were sent. RowsRefused: those of the records
    the stream refused (the others were sent)."""
    if _local is None:
        return _firehose_put(pack(rows))
    if _local.receive is not None:
        return _local.receive([record.data for record in pack(rows)])
    return _local.store(rows)


def local_engine() -> LocalEngine | None:
    """`make serve`'s engine, or None when deployed."""
    return _local
