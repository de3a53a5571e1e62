"""ClickHouseIngestFunction (WarehouseEngine=clickhouse) on the real engine: each closed
landing hour of `clickhouse-landing/` inserted once from the checkpoint, an open hour left
for later, a run again adding only copies that FINAL collapses, a failed hour stopping
the run and going in at the next, a backlog taken a bounded number of hours a run."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
import pytest

from sitelens.analytics.warehouse import answers, ingest, layout, query, sql
from sitelens.core import config, metrics
from sitelens.data import checkpoints
from sitelens.local import gateway
from tests.integration.analytics.test_warehouse import row

duckdb = pytest.importorskip("duckdb")

# at 11:15, the 10 o'clock hour is closed (Firehose's last buffer delivered), 11 is open
NOW = datetime(2026, 11, 23, 11, 15, tzinfo=UTC)
HOURS = ("2026-11-23-08", "2026-11-23-09", "2026-11-23-10", "2026-11-23-11")


@pytest.fixture
def bucket(aws_env: None, deployed_clickhouse: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    name = f"events-{uuid.uuid4().hex[:12]}"  # moto's buckets outlive a test
    monkeypatch.setenv("SITELENS_EVENTS_BUCKET", name)
    config.reset()
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket=name)
    return s3


def land(s3: Any, files: Path, hour: str, visitors: int) -> list[dict[str, Any]]:
    """A Firehose file of `visitors` pageviews in the hour's landing folder, in the bucket
    (its listing) and on disk (what the server reads)."""
    at = f"{hour[:10]}T{hour[11:]}:30:00"
    rows = [row(7, f"v{n}", at, page=f"/{n}") for n in range(visitors)]
    key = f"{ingest.folder(hour)}/part-{uuid.uuid4().hex}.parquet"
    with duckdb.connect() as connection:
        layout.land_file(connection, rows, files / key)
    s3.put_object(Bucket=config.settings().events_bucket, Key=key, Body=(files / key).read_bytes())
    return rows


def stored(database: Any, final: bool = True) -> int:
    return int(database.run(f"SELECT COUNT(*) FROM events{' FINAL' if final else ''}")[0][0])


def test_a_closed_hour_goes_in_and_an_open_one_waits(bucket, bucket_files, clickhouse_db):
    land(bucket, bucket_files, HOURS[2], 3)
    land(bucket, bucket_files, HOURS[2], 2)  # two files of the hour, one insert
    land(bucket, bucket_files, HOURS[3], 4)  # open at NOW
    assert ingest.run(NOW) == {"hours": 1}
    assert stored(clickhouse_db) == 5
    assert checkpoints.last(ingest.JOB) == HOURS[2]
    later = datetime(2026, 11, 23, 12, 15, tzinfo=UTC)
    assert ingest.run(later) == {"hours": 1}
    assert stored(clickhouse_db) == 9
    assert ingest.run(later) == {"hours": 0}  # nothing new: nothing inserted again


def test_the_first_run_creates_the_tables(bucket, bucket_files, clickhouse_db):
    clickhouse_db.command("DROP TABLE events")
    clickhouse_db.command("DROP TABLE landing")
    land(bucket, bucket_files, HOURS[0], 2)
    assert ingest.run(NOW) == {"hours": 1}
    assert stored(clickhouse_db) == 2
    assert clickhouse_db.run("EXISTS TABLE landing") == [(1,)]


def test_an_hour_inserted_twice_counts_once(bucket, bucket_files, clickhouse_db):
    """A run killed after its insert, before its checkpoint: the hour goes in again."""
    clickhouse_db.stop_merges()
    land(bucket, bucket_files, HOURS[1], 3)
    assert ingest.run(NOW) == {"hours": 1}
    # forget the checkpoint, as a run killed between its insert and its checkpoint leaves it
    boto3.client("dynamodb").delete_item(
        TableName=config.settings().stats_table, Key=checkpoints._key(ingest.JOB)
    )
    assert ingest.run(NOW) == {"hours": 1}
    assert stored(clickhouse_db, final=False) == 6  # the copies are there...
    assert stored(clickhouse_db) == 3  # ...and read once
    clickhouse_db.command("SYSTEM START MERGES events")
    clickhouse_db.merge()
    assert stored(clickhouse_db, final=False) == 3


def test_a_failed_hour_stops_the_run_and_goes_in_at_the_next(
    bucket, bucket_files, clickhouse_db, deployed_clickhouse, monkeypatch, capsys
):
    for hour in HOURS[:3]:
        land(bucket, bucket_files, hour, 2)
    real = deployed_clickhouse.command

    def refused(sql: str, settings: Any = None) -> None:
        if HOURS[1] in sql:
            raise RuntimeError("Code: 210. DB::NetException: Connection refused")
        real(sql, settings)

    monkeypatch.setattr(deployed_clickhouse, "command", refused)
    with pytest.raises(ingest.HourNotInserted):
        ingest.run(NOW)
    assert checkpoints.last(ingest.JOB) == HOURS[0]  # never past the failed hour
    assert stored(clickhouse_db) == 2
    metrics.flush()
    counted = metrics.read(capsys.readouterr().out)
    assert counted["ClickHouseHoursFailed"] == counted["PipelineFaults"] == 1
    monkeypatch.setattr(deployed_clickhouse, "command", real)
    assert ingest.run(NOW) == {"hours": 2}
    assert stored(clickhouse_db) == 6
    assert checkpoints.last(ingest.JOB) == HOURS[2]


def test_a_backlog_goes_in_a_bounded_number_of_hours_a_run(
    bucket, bucket_files, clickhouse_db, monkeypatch
):
    for hour in HOURS[:3]:
        land(bucket, bucket_files, hour, 1)
    monkeypatch.setattr(ingest, "MAX_HOURS", 2)
    assert ingest.run(NOW) == {"hours": 2}
    assert checkpoints.last(ingest.JOB) == HOURS[1]
    assert ingest.run(NOW) == {"hours": 1}
    assert stored(clickhouse_db) == 3


def test_the_function_fails_the_run_for_lambda_to_try_again(
    bucket, bucket_files, deployed_clickhouse, monkeypatch, capsys
):
    land(bucket, bucket_files, HOURS[0], 1)
    app = gateway.load_module(gateway.ROOT / "functions/analytics/ingest/app.py")
    real = deployed_clickhouse.command

    def refused(sql: str, settings: Any = None) -> None:
        if sql.startswith("INSERT"):
            raise RuntimeError("Code: 210. DB::NetException: Connection refused")
        real(sql, settings)

    monkeypatch.setattr(deployed_clickhouse, "command", refused)
    with pytest.raises(ingest.HourNotInserted):
        app.handler({}, gateway.LambdaContext("ingest-test"))
    assert metrics.read(capsys.readouterr().out)["ClickHouseHoursFailed"] == 1  # flushed
    monkeypatch.setattr(deployed_clickhouse, "command", real)
    assert app.handler({}, gateway.LambdaContext("ingest-test")) == {"hours": 1}


def test_the_server_reads_the_bucket_with_the_role_it_was_given(bucket, monkeypatch):
    from sitelens.data import clickhouse

    name = config.settings().events_bucket
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    assert clickhouse.landing("clickhouse-landing/hour=2026-11-23-10") == (
        f"s3('https://{name}.s3.eu-west-1.amazonaws.com/clickhouse-landing/hour=2026-11-23-10/"
        "*.parquet', 'Parquet')"
    )
    monkeypatch.setenv("SITELENS_CLICKHOUSE_S3_ROLE", "arn:aws:iam::1:role/reader")
    config.reset()
    assert clickhouse.landing("x").endswith(
        ", 'Parquet', extra_credentials(role_arn = 'arn:aws:iam::1:role/reader'))"
    )


def test_the_checkpoint_only_moves_forward(aws_env):
    """Two runs at once: the one behind cannot move the checkpoint back."""
    assert checkpoints.last("two-runs") is None
    assert checkpoints.advance("two-runs", HOURS[2])
    assert not checkpoints.advance("two-runs", HOURS[1])
    assert not checkpoints.advance("two-runs", HOURS[2])
    assert checkpoints.last("two-runs") == HOURS[2]


def _land_rows(s3: Any, files: Path, hour: str, rows: list[dict[str, Any]]) -> None:
    key = f"{ingest.folder(hour)}/part-{uuid.uuid4().hex}.parquet"
    with duckdb.connect() as connection:
        layout.land_file(connection, rows, files / key)
    s3.put_object(Bucket=config.settings().events_bucket, Key=key, Body=(files / key).read_bytes())


def _day_totals(database: Any, day: str) -> list[Any]:
    marked = database.run(f"SELECT summarised FROM summarised_days FINAL WHERE day = '{day}'")
    totals = database.run(f"SELECT visits FROM daily_totals WHERE day = '{day}'")
    return [marked, totals]


def test_a_closed_day_is_summarised_and_again_when_late_rows_come(
    bucket, bucket_files, clickhouse_db
):
    """The first hour of the 23rd closes the 22nd: its summaries are stored. Rows of the
    22nd landing later make it summarised again, and a question counts them."""
    day = "2026-11-22"
    _land_rows(bucket, bucket_files, "2026-11-22-21", [row(7, "a", f"{day}T21:10:00")])
    assert ingest.run(NOW) == {"hours": 1}
    assert _day_totals(clickhouse_db, day) == [[], []]  # open: raw rows answer it
    _land_rows(bucket, bucket_files, "2026-11-23-00", [row(7, "b", f"{day}T23:59:00")])
    assert ingest.run(NOW) == {"hours": 1}
    assert _day_totals(clickhouse_db, day) == [[(1,)], [(2,)]]
    late = [row(7, "c", f"{day}T12:00:00"), row(7, "d", "2026-11-23T08:10:00")]
    _land_rows(bucket, bucket_files, HOURS[0], late)
    assert ingest.run(NOW) == {"hours": 1}
    assert _day_totals(clickhouse_db, day) == [[(1,)], [(3,)]]  # replaced, not added
    body = {"site_id": 7, "date_range": ["2026-11-20", day], "metrics": ["visits"]}
    parsed = query.parse(body, NOW)
    found = answers.answer(parsed, sql.rows_from(clickhouse_db.run, "clickhouse"), body)
    assert found["results"] == [{"dimensions": [], "metrics": [3]}]


def test_a_day_with_late_rows_is_left_to_raw_rows_until_summarised_again(
    bucket, bucket_files, clickhouse_db, deployed_clickhouse, monkeypatch
):
    day = "2026-11-22"
    _land_rows(bucket, bucket_files, "2026-11-23-00", [row(7, "b", f"{day}T23:59:00")])
    assert ingest.run(NOW) == {"hours": 1}
    _land_rows(bucket, bucket_files, HOURS[0], [row(7, "c", f"{day}T12:00:00")])
    real = deployed_clickhouse.command

    def refused(sql_text: str, settings: Any = None) -> None:
        if "DROP PARTITION" in sql_text:
            raise RuntimeError("Code: 210. DB::NetException: Connection refused")
        real(sql_text, settings)

    monkeypatch.setattr(deployed_clickhouse, "command", refused)
    with pytest.raises(ingest.HourNotInserted):
        ingest.run(NOW)
    # the late row is in, the old summary is not: the day is not marked summarised
    assert _day_totals(clickhouse_db, day) == [[(0,)], [(1,)]]
    body = {"site_id": 7, "date_range": ["2026-11-20", day], "metrics": ["visits"]}
    parsed = query.parse(body, NOW)
    found = answers.answer(parsed, sql.rows_from(clickhouse_db.run, "clickhouse"), body)
    assert found["results"] == [{"dimensions": [], "metrics": [2]}]
