"""The raw-event warehouse: rows in through Amazon Data Firehose, SQL out through Athena.

Deployed, `put` sends rows as JSON lines to the Firehose stream, which converts them to
Parquet with the Glue table's schema and writes them to S3 under
`website_id=<id>/day=<YYYY-MM-DD>/`; `run` executes a statement in the Athena workgroup and
reads its rows. `make serve` replaces both with its local warehouse (`use`): the same
layout on disk, queried by DuckDB. The SQL dialect goes with the engine (`dialect`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sitelens import errors
from sitelens.config import settings
from sitelens.data.clients import client

MAX_QUERY_SECONDS: Final = 20.0  # within API Gateway's 29 s, with room to answer
MAX_SCANNED_BYTES: Final = 10 * 1024**3  # per query; the workgroup enforces it too
_POLL_SECONDS: Final = (0.1, 0.2, 0.4, 0.8, 1.0)
_FIREHOSE_BATCH: Final = 500  # records per PutRecordBatch
MAX_RESULT_ROWS: Final = 10_001  # one page of the API and the total-rows check

Rows = Sequence[Sequence[Any]]


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


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]  # Glue/Hive timestamp text
    raise TypeError(type(value).__name__)


def _firehose_put(rows: Iterable[Mapping[str, Any]]) -> int:
    """Send rows to the stream; the failed records of a batch are sent once more."""
    stream = settings().events_stream
    records = [
        {"Data": (json.dumps(row, default=_json_default, separators=(",", ":")) + "\n").encode()}
        for row in rows
    ]
    for start in range(0, len(records), _FIREHOSE_BATCH):
        batch = records[start : start + _FIREHOSE_BATCH]
        for _ in range(2):
            answer = client("firehose").put_record_batch(DeliveryStreamName=stream, Records=batch)
            if not answer.get("FailedPutCount"):
                break
            batch = [
                record
                for record, result in zip(batch, answer["RequestResponses"], strict=True)
                if result.get("ErrorCode")
            ]
        else:
            raise RuntimeError(f"Firehose refused {len(batch)} records twice")
    return len(records)


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
    while len(rows) <= MAX_RESULT_ROWS:
        page = client("athena").get_query_results(QueryExecutionId=execution, **token)
        result = page["ResultSet"]
        types = [column["Type"] for column in result["ResultSetMetadata"]["ColumnInfo"]]
        for raw in result["Rows"]:
            cells = [cell.get("VarCharValue") for cell in raw["Data"]]
            rows.append([_typed(cell, kind) for cell, kind in zip(cells, types, strict=True)])
        if "NextToken" not in page:
            break
        token = {"NextToken": page["NextToken"]}
    return rows[1:]  # the first row of a SELECT's results holds the column names


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
    """SQLGlot's name of the SQL the engine in use speaks."""
    return _local.sql_dialect if _local else "athena"


def run(sql: str) -> Rows:
    """The rows of a statement on the engine in use."""
    return _local.query(sql) if _local else _athena_run(sql)


def put(rows: Iterable[Mapping[str, Any]]) -> int:
    """Store raw event rows with the engine in use; returns how many were sent."""
    return _local.store(rows) if _local else _firehose_put(rows)
