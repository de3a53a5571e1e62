"""No warehouse row lost, none twice, at any delay: Firehose's conversion failures
re-ingested by hit id (or parked, counted), compaction under a lease, and a deleted
website's raw events removed with it. Deployed (moto S3 and DynamoDB) and under
`make serve` (the same layout on disk)."""

from __future__ import annotations

import io
import json
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import boto3
import pytest

from sitelens.analytics.warehouse import compaction, layout, reingest, summaries
from sitelens.core import config, metrics
from sitelens.core.log import logger
from sitelens.data import leases, warehouse
from sitelens.local.warehouse import LocalWarehouse
from tests.fixtures.analytics import run
from tests.integration.analytics import test_warehouse_layout as layout_tests
from tests.integration.analytics.test_warehouse_layout import land, rows

duckdb = pytest.importorskip("duckdb")
AT = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
DAY = "2026-11-21"


@pytest.fixture
def bucket(aws_env, monkeypatch) -> Any:
    name = f"events-{uuid.uuid4().hex[:12]}"  # moto's buckets outlive a test
    layout_tests.BUCKET = name  # `land` and `read` of the layout tests put it there
    monkeypatch.setenv("SITELENS_EVENTS_BUCKET", name)
    config.reset()
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket=name)
    warehouse.use(None)  # deployed: S3, not make serve's folder
    return s3


def keys(s3: Any, prefix: str = "") -> list[str]:
    found = s3.list_objects_v2(Bucket=layout_tests.BUCKET, Prefix=prefix).get("Contents", [])
    return sorted(item["Key"] for item in found)


def hits(s3: Any, website_id: int) -> list[str]:
    """The site-day's hits once merged (the daily level, run first)."""
    compaction.run(merge=True)
    return sorted(
        hit for hit, _ in layout_tests.read(s3, compaction.compacted_file(website_id, DAY))
    )


def line(row: dict[str, Any]) -> bytes:
    """A row as the aggregator sends it to Firehose (`data.warehouse._firehose_put`)."""
    return (json.dumps(row, default=warehouse._json_default) + "\n").encode()


def error_file(documents: list[dict[str, Any]]) -> bytes:
    """An object Firehose writes under landing-errors/: its error documents, a line each."""
    return "".join(json.dumps(document) + "\n" for document in documents).encode()


def failed(data: bytes, code: str = "DataFormatConversion.ParseError") -> dict[str, Any]:
    return reingest.error_document(data, code, "it did not convert", AT)


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """The lines the service's logger writes, at INFO whatever the tests run with."""
    stream = io.StringIO()
    monkeypatch.setattr(logger.registered_handler, "stream", stream)
    level = logger.log_level
    logger.setLevel("INFO")
    yield stream
    logger.setLevel(level)


def pending_metrics(name: str) -> dict[str, int]:
    return {
        dict(dims).get("reason", ""): n
        for (key, dims), n in metrics._pending.items()
        if key == name
    }


# ---------------------------------------------------------------- re-ingest


def test_conversion_failures_are_reingested_once_by_hit_id_or_parked(bucket, tmp_path):
    compacted = rows(7, 3, AT)
    land(bucket, tmp_path, compacted, "a")
    compaction.run()
    fresh = rows(7, 2, AT)
    unfit = {**rows(7, 1, AT)[0], "engagement_ms": "a long time"}
    documents = [
        failed(line(fresh[0]), "Glue.ThrottlingException"),  # the schema could not be read then
        failed(line(fresh[1])),
        failed(line(compacted[0])),  # a hit already in the warehouse
        failed(line(unfit)),
        failed(b"{not json"),
    ]
    source = reingest.error_file(DAY, "EventsStream-1-2026-11-21-10-00-00-abc")
    bucket.put_object(Bucket=layout_tests.BUCKET, Key=source, Body=error_file(documents))
    done = compaction.run()
    assert (done["error_files"], done["reingested"], done["parked"]) == (1, 3, 2)
    assert hits(bucket, 7) == sorted(row["hit_id"] for row in [*compacted, *fresh])
    assert keys(bucket, layout.ERRORS) == []  # read, and removed once its rows were kept
    [site_parked] = keys(bucket, f"{layout.PARKED}/website_id=7/")
    [unreadable] = keys(bucket, f"{layout.PARKED}/{reingest.UNREADABLE}/")
    kept = json.loads(bucket.get_object(Bucket=layout_tests.BUCKET, Key=site_parked)["Body"].read())
    assert kept["reason"] == "engagement_ms is not a whole number of 64 bits"
    assert kept["rawData"] == documents[3]["rawData"]  # Firehose's document, whole
    assert unreadable.endswith(".jsonl")
    assert pending_metrics("RowsParked") == {"unfit": 1, "unreadable": 1}
    assert pending_metrics("RowsReingested") == {"": 3}
    # The same error file again (a run that crashed before deleting it): nothing added twice.
    bucket.put_object(Bucket=layout_tests.BUCKET, Key=source, Body=error_file(documents))
    compaction.run()
    assert hits(bucket, 7) == sorted(row["hit_id"] for row in [*compacted, *fresh])
    assert len(keys(bucket, f"{layout.PARKED}/website_id=7/")) == 1  # the same parked file


def test_a_packed_record_that_failed_is_reingested_row_by_row(bucket, tmp_path):
    fresh = rows(7, 3, AT)
    unfit = {**rows(7, 1, AT)[0], "engagement_ms": "a long time"}
    [record] = warehouse.pack([fresh[0], unfit, fresh[1], fresh[2]])
    assert record.rows == 4
    documents = [failed(record.data), failed(record.data[:-30])]  # whole; cut off mid-row
    source = reingest.error_file(DAY, "EventsStream-1-2026-11-21-10-00-00-def")
    bucket.put_object(Bucket=layout_tests.BUCKET, Key=source, Body=error_file(documents))
    before = pending_metrics("RowsParked")
    done = compaction.run()
    # 3 rows of the first record, 2 of the second (a hit twice is kept once); the unfit row
    # twice and the cut-off row's rest, parked
    assert (done["error_files"], done["reingested"], done["parked"]) == (1, 5, 3)
    assert hits(bucket, 7) == sorted(row["hit_id"] for row in fresh)
    parked = [
        json.loads(text)
        for key in keys(bucket, layout.PARKED)
        for text in bucket.get_object(Bucket=layout_tests.BUCKET, Key=key)["Body"].iter_lines()
    ]
    own = [document for document in parked if document["reason"] != "not a JSON row"]
    assert [reingest.base64.b64decode(d["rawData"]) for d in own] == [line_of(unfit)] * 2
    after = pending_metrics("RowsParked")
    assert {why: n - before.get(why, 0) for why, n in after.items()} == {
        "unfit": 2,
        "unreadable": 1,
    }


def line_of(row: dict[str, Any]) -> bytes:
    """A row's bytes in a packed record (without the newline that ends it)."""
    return warehouse.pack([row])[0].data.rstrip(b"\n")


def test_an_error_file_stays_until_its_rows_are_kept(bucket, tmp_path, monkeypatch):
    source = reingest.error_file(DAY, "EventsStream-1-x")
    body = error_file([failed(line(rows(7, 1, AT)[0]))])
    bucket.put_object(Bucket=layout_tests.BUCKET, Key=source, Body=body)

    def refused(path: Path, key: str) -> None:
        raise RuntimeError("S3 refused the put")

    monkeypatch.setattr(warehouse, "upload", refused)
    with pytest.raises(RuntimeError):
        compaction.run()
    assert keys(bucket, layout.ERRORS) == [source]
    monkeypatch.undo()
    monkeypatch.setenv("SITELENS_EVENTS_BUCKET", layout_tests.BUCKET)
    config.reset()
    assert compaction.run()["reingested"] == 1
    assert keys(bucket, layout.ERRORS) == []


def test_make_serve_writes_unconvertible_rows_as_firehose_does_and_reingests(tmp_path):
    store = LocalWarehouse(tmp_path)
    try:
        good = rows(7, 3, AT)
        store.write([*good, {**rows(7, 1, AT)[0], "engagement_ms": "a long time"}])
        [errors] = [p for p in (tmp_path / layout.ERRORS).glob("**/*") if p.is_file()]
        assert errors.parent.parent.name == reingest.CONVERSION_FAILED
        [document] = list(reingest.documents(errors.read_bytes()))
        assert document["errorCode"] == "DataFormatConversion.ParseError"
        assert json.loads(reingest.base64.b64decode(document["rawData"]))["engagement_ms"] == (
            "a long time"
        )
        # A record Firehose failed for want of its schema: its row fits, and is re-ingested.
        late = rows(7, 1, AT)[0]
        dropped = tmp_path / reingest.error_file(DAY, "EventsStream-glue")
        dropped.parent.mkdir(parents=True, exist_ok=True)
        dropped.write_bytes(error_file([failed(line(late), "Glue.AccessDenied")]))
        done = store.compact()
        store.merge(date.max)  # the daily level too, every day taken as closed
        assert (done["error_files"], done["reingested"], done["parked"]) == (2, 1, 1)
        found = store.run("SELECT hit_id FROM events WHERE website_id = 7 ORDER BY hit_id")
        assert [hit for (hit,) in found] == sorted(r["hit_id"] for r in [*good, late])
        assert len(list((tmp_path / layout.PARKED / "website_id=7").glob("*/*.jsonl"))) == 1
    finally:
        store.close()


def test_make_serve_splits_packed_records_as_firehose_does(tmp_path):
    store = LocalWarehouse(tmp_path)
    try:
        good = rows(7, 3, AT)
        unfit = {**rows(7, 1, AT)[0], "engagement_ms": "a long time"}
        fits = warehouse.pack(good)[0].data
        fails = warehouse.pack([good[0], unfit])[0].data
        assert store.receive([fits, fails]) == 5
        [errors] = [p for p in (tmp_path / layout.ERRORS).glob("**/*") if p.is_file()]
        [document] = list(reingest.documents(errors.read_bytes()))
        assert reingest.base64.b64decode(document["rawData"]) == fails  # the record, whole
        found = store.run("SELECT hit_id FROM landing ORDER BY hit_id")
        assert [hit for (hit,) in found] == sorted(r["hit_id"] for r in good)
        done = store.compact()
        store.merge(date.max)  # the daily level too, every day taken as closed
        assert (done["reingested"], done["parked"]) == (1, 1)  # good[0] again: kept once
        found = store.run("SELECT hit_id FROM events WHERE website_id = 7 ORDER BY hit_id")
        assert [hit for (hit,) in found] == sorted(r["hit_id"] for r in good)
    finally:
        store.close()


def test_a_row_fits_only_with_every_value_of_its_column_s_type():
    row = json.loads(line(rows(7, 1, AT)[0]))
    assert reingest.landing_row(row)["ts"] == datetime(2026, 11, 21, 10, 1)
    assert reingest.landing_row({**row, "ts": "2026-11-21T11:01:00+01:00"})["ts"] == datetime(
        2026, 11, 21, 10, 1
    )
    for bad, why in (
        ({"website_id": True}, "website_id is not a whole number"),
        ({"engagement_ms": 2**63}, "engagement_ms is not a whole number of 64 bits"),
        ({"interactive": "yes"}, "interactive is not a boolean"),
        ({"hit_id": ""}, "hit_id missing"),
        ({"day": "2026-11-22"}, "day is not the UTC day of ts"),
        ({"ts": "yesterday"}, "ts is no timestamp"),
    ):
        with pytest.raises(reingest.Unfit, match=why):
            reingest.landing_row({**row, **bad})


# ---------------------------------------------------------------- the lease


def test_a_run_while_another_holds_the_lease_does_nothing_and_says_so(bucket, tmp_path, written):
    land(bucket, tmp_path, rows(7, 4, AT), "a")
    other = leases.acquire(compaction.LEASE, compaction.LEASE_SECONDS)  # a run under way
    assert other is not None
    assert compaction.run() == {"skipped": 1, "landing_files": 0, "partitions": 0, "rows": 0}
    assert "compaction skipped: another run holds the lease" in written.getvalue()
    assert pending_metrics("CompactionsSkipped") == {"": 1}
    assert keys(bucket, "landing/") == ["landing/hour=2026-11-21-10/a.parquet"]  # untouched
    assert leases.release(compaction.LEASE, other)
    assert compaction.run()["rows"] == 4
    # released at the end: the next run takes it at once
    assert compaction.run()["landing_files"] == 0


def test_a_run_started_midway_through_another_is_skipped(bucket, tmp_path, monkeypatch):
    land(bucket, tmp_path, rows(7, 4, AT), "a")
    inner: list[dict[str, int]] = []
    split = compaction.split

    def overlapping(*args: Any, **kwargs: Any) -> Any:
        inner.append(compaction.run(merge=True))  # the daily merge starts meanwhile
        return split(*args, **kwargs)

    monkeypatch.setattr(compaction, "split", overlapping)
    assert compaction.run()["rows"] == 4
    assert inner == [{"skipped": 1, "landing_files": 0, "partitions": 0, "rows": 0}]


def test_a_killed_run_s_lease_expires(bucket, tmp_path, monkeypatch):
    land(bucket, tmp_path, rows(7, 4, AT), "a")
    killed = leases.acquire(compaction.LEASE, compaction.LEASE_SECONDS)
    assert killed is not None and compaction.run()["skipped"] == 1
    later = time.time() + compaction.LEASE_SECONDS
    monkeypatch.setattr(leases.time, "time", lambda: later)
    assert compaction.run()["rows"] == 4
    assert not leases.release(compaction.LEASE, killed)  # the killed run's is gone


# ---------------------------------------------------------------- a deleted website


def cleanup_record(website_id: int) -> dict[str, Any]:
    return {
        "messageId": f"cleanup-{website_id}",
        "receiptHandle": "r",
        "body": json.dumps({"kind": "cleanup", "website_id": website_id}),
        "attributes": {"ApproximateReceiveCount": "1"},
        "messageAttributes": {},
        "eventSource": "aws:sqs",
    }


def test_a_deleted_website_s_raw_events_are_removed_with_it(bucket, tmp_path):
    land(bucket, tmp_path, rows(7, 4, AT) + rows(8, 3, AT), "a")
    compaction.run()
    compaction.run(merge=True)
    parked = reingest.error_file(DAY, "EventsStream-x")
    unfit = {**rows(7, 1, AT)[0], "interactive": "maybe"}
    bucket.put_object(
        Bucket=layout_tests.BUCKET, Key=parked, Body=error_file([failed(line(unfit))])
    )
    compaction.run()
    assert keys(bucket, f"{layout.PARKED}/website_id=7/")
    # The website is deleted: its cleanup marks it; rows of it still arrive (hits in flight).
    assert run("TasksQueue", [cleanup_record(7)]) == {"batchItemFailures": []}
    land(bucket, tmp_path, rows(7, 2, AT) + rows(8, 1, AT), "b")
    done = compaction.run()
    assert done["removed"] == 1 + len(summaries.COLUMNS) + 1  # its day, summaries, parked
    site_7 = [key for key in keys(bucket) if "website_id=7" in key]
    assert site_7 == [layout.tombstone(7, layout.REMOVED)]
    assert len(hits(bucket, 8)) == 4  # the other site's, all kept
    assert keys(bucket, "landing/") == []  # shared files: compacted without site 7's rows
    # Later rows of it (an error file re-read) are dropped too, and nothing is removed twice.
    bucket.put_object(
        Bucket=layout_tests.BUCKET, Key=parked, Body=error_file([failed(line(unfit))])
    )
    assert compaction.run()["removed"] == 0
    assert [key for key in keys(bucket) if "website_id=7" in key] == site_7


def test_make_serve_removes_a_deleted_website_s_files(tmp_path, aws_env):
    store = LocalWarehouse(tmp_path)
    warehouse.use(
        warehouse.LocalEngine("duckdb", store.run, store.write, store.compact, store.mark_deleted)
    )
    try:
        store.write(rows(7, 3, AT) + rows(8, 2, AT))
        store.compact()
        assert run("TasksQueue", [cleanup_record(7)]) == {"batchItemFailures": []}
        store.write(rows(7, 1, AT))
        store.compact()
        store.merge(date.max)  # the daily level too, every day taken as closed
        assert store.run("SELECT DISTINCT website_id FROM events") == [(8,)]
        assert not (tmp_path / compaction.compacted_file(7, DAY)).exists()
        assert (tmp_path / layout.tombstone(7, layout.REMOVED)).exists()
    finally:
        store.close()


# ---------------------------------------------------------------- the daily merge


def test_a_merge_cut_off_before_it_deletes_the_parts_loses_and_doubles_nothing(
    bucket, tmp_path, monkeypatch
):
    first = rows(7, 4, AT)
    land(bucket, tmp_path, first, "a")
    compaction.run()
    land(bucket, tmp_path, [*rows(7, 2, AT), first[0]], "b")  # a hit again, in a second part
    compaction.run()
    parts = keys(bucket, layout.PARTS)
    assert len(parts) == 2

    def killed(keys: Any) -> None:
        raise RuntimeError("killed before the parts were deleted")

    monkeypatch.setattr(warehouse, "delete", killed)
    with pytest.raises(RuntimeError):
        compaction.run(merge=True)
    monkeypatch.undo()
    monkeypatch.setenv("SITELENS_EVENTS_BUCKET", layout_tests.BUCKET)
    config.reset()
    # the day's file and summaries are put, and the parts still there: nothing lost
    assert keys(bucket, layout.PARTS) == parts
    assert len(layout_tests.read(bucket, compaction.compacted_file(7, DAY))) == 6
    # the next merge folds them again: each hit once
    assert compaction.run(merge=True) == {"merged": 1, "parts": 2, "rows": 6, "left": 0}
    assert keys(bucket, layout.PARTS) == []
    assert len(hits(bucket, 7)) == 6


def test_a_deleted_website_s_parts_go_with_it(bucket, tmp_path):
    land(bucket, tmp_path, rows(7, 3, AT), "a")
    compaction.run()
    assert keys(bucket, f"{layout.PARTS}/website_id=7/")
    assert run("TasksQueue", [cleanup_record(7)]) == {"batchItemFailures": []}
    assert compaction.run()["removed"] == 1
    assert keys(bucket, f"{layout.PARTS}/website_id=7/") == []
