"""The deployed warehouse adapter against botocore's stubs on real boto3 clients: rows
packed into Firehose records (1,000 KiB), batches (500 records, 4 MiB), only the refused
records sent again and the give-up after the last attempt, for their rows only; Athena
polled through QUEUED and RUNNING, its failures, its deadline, and its results read page by
page. A fake clock stands in for every sleep."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from sitelens.analytics.hit import Hit
from sitelens.core import config
from sitelens.data import clients, transactions, warehouse
from tests.conftest import Account, Client
from tests.fixtures.analytics import hit_record, run
from tests.fixtures.clocks import SteppedClock

STREAM = "sitelens-events"
WORKGROUP = "sitelens"
DATABASE = "sitelens_events"
SQL = "SELECT page, visitors FROM events"
EXECUTION = "6f1c0c4e-0000-4000-8000-000000000001"


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> SteppedClock:
    fake = SteppedClock(1_000.0)
    monkeypatch.setattr(warehouse, "time", fake)
    monkeypatch.setattr(transactions, "time", fake)  # Firehose's backoff between attempts
    return fake


@pytest.fixture
def deployed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The adapter as deployed: no local engine, the stack's names in the environment."""
    for name, value in {
        "SITELENS_EVENTS_STREAM": STREAM,
        "SITELENS_ATHENA_WORKGROUP": WORKGROUP,
        "SITELENS_EVENTS_DATABASE": DATABASE,
    }.items():
        monkeypatch.setenv(name, value)
    config.reset()
    saved = warehouse.local_engine()
    warehouse.use(None)
    yield
    warehouse.use(saved)
    clients.reset()
    config.reset()


def stubbed(service: str) -> Iterator[Stubber]:
    """A real boto3 client of `service`, stubbed, as the adapter's client."""
    real = boto3.client(service, region_name="us-east-1")  # type: ignore[call-overload]
    clients.use(service, real)
    with Stubber(real) as stubber:
        yield stubber
        stubber.assert_no_pending_responses()


@pytest.fixture
def firehose(deployed: None, clock: SteppedClock) -> Iterator[Stubber]:
    yield from stubbed("firehose")


@pytest.fixture
def athena(deployed: None, clock: SteppedClock) -> Iterator[Stubber]:
    yield from stubbed("athena")


# -- Firehose ------------------------------------------------------------------------------


def rows(count: int, page_bytes: int = 10) -> list[dict[str, Any]]:
    return [
        {
            "hit_id": f"h{n:04d}",
            "ts": datetime(2026, 11, 20, 9, 0, n % 60),
            "page": "/" * page_bytes,
        }
        for n in range(count)
    ]


def line(row: dict[str, Any]) -> bytes:
    """The record of a row: a JSON line, timestamps as Glue reads them."""
    text = json.dumps(
        {**row, "ts": row["ts"].strftime("%Y-%m-%d %H:%M:%S.000")}, separators=(",", ":")
    )
    return (text + "\n").encode()


def accepted(count: int) -> dict[str, Any]:
    return {
        "FailedPutCount": 0,
        "Encrypted": False,
        "RequestResponses": [{"RecordId": f"r{n}"} for n in range(count)],
    }


def refused(records: list[dict[str, bytes]], failing: set[int]) -> dict[str, Any]:
    """An answer refusing the records at the positions in `failing`."""
    return {
        "FailedPutCount": len(failing),
        "Encrypted": False,
        "RequestResponses": [
            {"ErrorCode": "ServiceUnavailableException", "ErrorMessage": "Slow down."}
            if n in failing
            else {"RecordId": f"r{n}"}
            for n in range(len(records))
        ],
    }


def expect_put(stubber: Stubber, records: list[dict[str, bytes]], answer: dict[str, Any]) -> None:
    stubber.add_response(
        "put_record_batch", answer, {"DeliveryStreamName": STREAM, "Records": records}
    )


def packed(sent: list[dict[str, Any]], per_record: int) -> list[dict[str, bytes]]:
    """The records of rows, `per_record` JSON lines one after another in each."""
    return [
        {"Data": b"".join(line(row) for row in sent[start : start + per_record])}
        for start in range(0, len(sent), per_record)
    ]


def test_rows_go_as_json_lines_packed_into_one_record(
    firehose: Stubber, clock: SteppedClock
) -> None:
    sent = rows(1_201)  # 72 kB of rows: one record, billed as 75 kB, not 1,201 x 5 kB
    expect_put(firehose, packed(sent, 1_201), accepted(1))
    assert warehouse.put(sent) == 1_201
    assert clock.slept == []


def test_a_record_holds_at_most_1000_kib_and_a_call_4_mib(firehose: Stubber) -> None:
    sent = rows(1_000, page_bytes=10_000)  # 10 kB a row: 10 MB in all
    size = len(line(sent[0]))
    per_record = warehouse.RECORD_BYTES // size
    records = packed(sent, per_record)
    assert all(len(record["Data"]) <= 1_000 * 1024 for record in records)
    for start in range(0, len(records), 4):  # four records of ~1,000 KiB fit in 4 MiB
        batch = records[start : start + 4]
        expect_put(firehose, batch, accepted(len(batch)))
    assert warehouse.put(sent) == 1_000


def test_only_the_refused_records_are_sent_again(
    firehose: Stubber, clock: SteppedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = rows(10)
    monkeypatch.setattr(warehouse, "RECORD_BYTES", 2 * len(line(sent[0])))
    records = packed(sent, 2)
    expect_put(firehose, records, refused(records, {1, 3}))
    again = [records[1], records[3]]
    expect_put(firehose, again, refused(again, {1}))
    expect_put(firehose, [records[3]], accepted(1))
    assert warehouse.put(sent) == 10
    assert len(clock.slept) == 2  # a backoff before each attempt after the first
    ceilings = [transactions.BACKOFF_BASE_SECONDS * 2**n for n in range(2)]
    assert all(0 <= slept <= most for slept, most in zip(clock.slept, ceilings, strict=True))


def test_records_still_refused_after_the_last_attempt_fail_their_rows_only(
    firehose: Stubber, clock: SteppedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = rows(6, page_bytes=1_000)
    monkeypatch.setattr(warehouse, "RECORD_BYTES", 2 * len(line(sent[0])))
    monkeypatch.setattr(warehouse, "_FIREHOSE_BATCH", 2)  # two calls: the second still goes
    records = packed(sent, 2)
    expect_put(firehose, records[:2], refused(records[:2], {1}))
    for _ in range(warehouse._FIREHOSE_ATTEMPTS - 1):
        expect_put(firehose, [records[1]], refused([records[1]], {0}))
    expect_put(firehose, records[2:], accepted(1))
    with pytest.raises(warehouse.RowsRefused, match=r"^Firehose refused 1 records 4 times$") as err:
        warehouse.put(sent)
    assert err.value.positions == {2, 3}  # the rows of the refused record
    assert len(clock.slept) == warehouse._FIREHOSE_ATTEMPTS - 1


def test_the_aggregator_counts_rows_the_stream_refused_and_retries_their_messages(
    analytics: Client, account: Account, firehose: Stubber, capsys: pytest.CaptureFixture[str]
) -> None:
    website = analytics.post("/api/v1/websites", {"domain": "example.com"}).data
    at = datetime.fromisoformat("2026-11-20T09:00:00+00:00")
    batch = [
        hit_record(Hit(website_id=website["id"], at=at, page=f"/p{n}", visit=True), account.id, n)
        for n in range(2)
    ]
    for _ in range(warehouse._FIREHOSE_ATTEMPTS):  # every attempt refuses the one record
        firehose.add_response(
            "put_record_batch",
            {"FailedPutCount": 1, "RequestResponses": [{"ErrorCode": "InternalFailure"}]},
        )
    capsys.readouterr()
    answer = run("HitsQueue", batch)
    assert {failure["itemIdentifier"] for failure in answer["batchItemFailures"]} == {
        "hit-0",
        "hit-1",
    }
    emitted = [json.loads(text) for text in capsys.readouterr().out.splitlines() if "_aws" in text]
    counts = {
        (name, line.get("reason")): sum(line[name])
        for line in emitted
        for name in ("RowsFailed", "RowsDelivered", "MessagesRetried")
        if name in line
    }
    assert counts == {("RowsFailed", None): 2, ("MessagesRetried", "rows"): 2}


# -- Athena --------------------------------------------------------------------------------

COLUMNS = [
    {"Name": "page", "Type": "varchar"},
    {"Name": "visitors", "Type": "bigint"},
    {"Name": "bounce_rate", "Type": "double"},
]


def result_rows(*values: tuple[str | None, ...]) -> list[dict[str, Any]]:
    return [
        {"Data": [{} if value is None else {"VarCharValue": value} for value in row]}
        for row in values
    ]


def results(page_rows: list[dict[str, Any]], next_token: str | None = None) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "ResultSet": {"Rows": page_rows, "ResultSetMetadata": {"ColumnInfo": COLUMNS}}
    }
    if next_token:
        answer["NextToken"] = next_token
    return answer


def expect_start(stubber: Stubber) -> None:
    stubber.add_response(
        "start_query_execution",
        {"QueryExecutionId": EXECUTION},
        {
            "QueryString": SQL,
            "WorkGroup": WORKGROUP,
            "QueryExecutionContext": {"Database": DATABASE},
        },
    )


def expect_state(stubber: Stubber, state: str, reason: str | None = None) -> None:
    status: dict[str, Any] = {"State": state}
    if reason is not None:
        status["StateChangeReason"] = reason
    stubber.add_response(
        "get_query_execution",
        {"QueryExecution": {"QueryExecutionId": EXECUTION, "Status": status}},
        {"QueryExecutionId": EXECUTION},
    )


def expect_results(stubber: Stubber, answer: dict[str, Any], token: str | None = None) -> None:
    params = {"QueryExecutionId": EXECUTION, **({"NextToken": token} if token else {})}
    stubber.add_response("get_query_results", answer, params)


HEADER = ("page", "visitors", "bounce_rate")  # Athena's first row: the columns' names


def test_a_query_is_polled_until_it_succeeds_and_read_page_by_page(
    athena: Stubber, clock: SteppedClock
) -> None:
    expect_start(athena)
    for state in ("QUEUED", "QUEUED", "RUNNING", "RUNNING", "RUNNING", "RUNNING", "SUCCEEDED"):
        expect_state(athena, state)
    expect_results(athena, results(result_rows(HEADER, ("/", "12", "0.5")), "page-2"))
    expect_results(athena, results(result_rows(("/about", "3", None)), "page-3"), "page-2")
    expect_results(athena, results(result_rows((None, "0", "1.0"))), "page-3")
    assert warehouse.run(SQL) == [["/", 12, 0.5], ["/about", 3, None], [None, 0, 1.0]]
    assert clock.slept == [0.1, 0.2, 0.4, 0.8, 1.0, 1.0]  # backing off, then every second


def test_an_empty_result_is_no_rows(athena: Stubber) -> None:
    expect_start(athena)
    expect_state(athena, "SUCCEEDED")
    expect_results(athena, results(result_rows(HEADER)))
    assert warehouse.run(SQL) == []


def test_reading_stops_at_the_most_rows_an_answer_needs(
    athena: Stubber, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(warehouse, "MAX_RESULT_ROWS", 3)
    expect_start(athena)
    expect_state(athena, "SUCCEEDED")
    expect_results(athena, results(result_rows(HEADER, ("/a", "1", "0"), ("/b", "1", "0")), "2"))
    expect_results(athena, results(result_rows(("/c", "1", "0"), ("/d", "1", "0")), "3"), "2")
    # no third page is asked for: the answer has its rows
    assert [row[0] for row in warehouse.run(SQL)] == ["/a", "/b", "/c", "/d"]


@pytest.mark.parametrize("state", ["FAILED", "CANCELLED"])
def test_a_query_that_fails_raises_with_athenas_reason(athena: Stubber, state: str) -> None:
    expect_start(athena)
    expect_state(athena, "RUNNING")
    expect_state(athena, state, "SYNTAX_ERROR: line 1:8: Column 'x' cannot be resolved")
    with pytest.raises(RuntimeError, match=f"^Athena query {EXECUTION} {state}: SYNTAX_ERROR"):
        warehouse.run(SQL)


def test_a_query_over_the_workgroups_scan_cutoff_is_too_expensive(athena: Stubber) -> None:
    expect_start(athena)
    expect_state(athena, "CANCELLED", "Query cancelled! : Bytes scanned limit was exceeded")
    with pytest.raises(warehouse.TooExpensive) as raised:
        warehouse.run(SQL)
    assert raised.value.status == 422
    assert raised.value.message == {
        "query": ["The query would read too much: narrow its date range."]
    }


def test_a_query_past_the_deadline_is_stopped_and_too_expensive(
    athena: Stubber, clock: SteppedClock
) -> None:
    waits = warehouse._POLL_SECONDS
    elapsed, polls = 0.0, 1
    while elapsed <= warehouse.MAX_QUERY_SECONDS:  # the polls the clock allows, and one more
        elapsed += waits[min(polls - 1, len(waits) - 1)]
        polls += 1
    expect_start(athena)
    for _ in range(polls):
        expect_state(athena, "RUNNING")
    athena.add_response("stop_query_execution", {}, {"QueryExecutionId": EXECUTION})
    with pytest.raises(warehouse.TooExpensive, match="took more than 20 s"):
        warehouse.run(SQL)
    assert len(clock.slept) == polls - 1
    assert sum(clock.slept) == pytest.approx(elapsed)
