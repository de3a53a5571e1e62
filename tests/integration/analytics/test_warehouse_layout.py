"""The warehouse's layout as deployed: the Glue tables say what the code writes, landing
does not depend on the sites, and the deployed compaction (S3, DuckDB) merges landing
into one deduplicated, sorted file per site and day, removing landing only afterwards."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest

from sitelens.analytics.warehouse import compaction, layout, schema, summaries
from sitelens.core import clock, config
from sitelens.data import warehouse
from sitelens.local import gateway, template
from sitelens.local.warehouse import LocalWarehouse

duckdb = pytest.importorskip("duckdb")
TEMPLATE = template.load()
BUCKET = "sitelens-events-test"


def glue_columns(table: str) -> list[tuple[str, str]]:
    spec = TEMPLATE["Resources"][table]["Properties"]["TableInput"]["StorageDescriptor"]
    return [(column["Name"], column["Type"]) for column in spec["Columns"]]


def test_the_tables_have_the_schema_s_columns():
    assert glue_columns("EventsTable") == list(schema.COLUMNS)
    assert glue_columns("EventPartsTable") == list(schema.COLUMNS)
    assert glue_columns("LandingTable") == compaction.landing_columns()
    assert glue_columns("DailyTotalsTable") == list(summaries.COLUMNS[summaries.TOTALS])
    assert glue_columns("DailyVisitsTable") == list(summaries.COLUMNS[summaries.VISITS])
    assert glue_columns("DailyPagesTable") == list(summaries.COLUMNS[summaries.PAGES])


def test_landing_is_by_hour_of_arrival_whatever_the_site():
    stream = TEMPLATE["Resources"]["EventsStream"]["Properties"]
    destination = stream["ExtendedS3DestinationConfiguration"]
    # (WarehouseEngine=clickhouse: a folder of their own, tests/unit/test_deployment_clickhouse.py)
    assert destination["Prefix"]["Fn::If"][2] == "landing/hour=!{timestamp:yyyy-MM-dd-HH}/"
    assert "DynamicPartitioningConfiguration" not in destination
    schema_of = destination["DataFormatConversionConfiguration"]["SchemaConfiguration"]
    assert schema_of["TableName"] == {"Ref": "LandingTable"}


def rows(website_id: int, count: int, start: datetime) -> list[dict[str, Any]]:
    found = []
    for n in range(count):
        ts = start + timedelta(minutes=count - n)  # out of order: compaction sorts
        row = {name: "" if kind == "string" else None for name, kind in schema.COLUMNS}
        row.update(
            website_id=website_id,
            day=ts.date().isoformat(),
            hit_id=str(uuid.uuid4()),
            ts=ts.replace(tzinfo=None),
            name="pageview",
            page=f"/p{n}",
            engagement_ms=0,
            interactive=False,
        )
        found.append(row)
    return found


@pytest.fixture
def bucket(aws_env, monkeypatch) -> Any:
    global BUCKET
    BUCKET = f"events-{uuid.uuid4().hex[:12]}"  # moto's buckets outlive a test
    monkeypatch.setenv("SITELENS_EVENTS_BUCKET", BUCKET)
    config.reset()
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket=BUCKET)
    warehouse.use(None)  # deployed: S3, not make serve's folder
    return s3


def land(s3: Any, tmp_path: Path, batch: list[dict[str, Any]], name: str) -> None:
    """A Firehose file: the rows as Parquet under landing/hour=.../."""
    local = LocalWarehouse(tmp_path / name)
    local.write(batch)
    [path] = list((tmp_path / name / "landing").glob("hour=*/*.parquet"))
    s3.upload_file(str(path), BUCKET, f"landing/hour=2026-11-21-10/{name}.parquet")
    local.close()


def read(s3: Any, key: str) -> list[tuple[Any, ...]]:
    data = s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()
    connection = duckdb.connect()
    path = Path("/tmp") / f"read-{uuid.uuid4().hex}.parquet"
    path.write_bytes(data)
    try:
        return connection.execute(f"SELECT hit_id, ts FROM read_parquet('{path}')").fetchall()
    finally:
        path.unlink()


def stored(s3: Any) -> dict[str, str]:
    """Every object of the bucket, by key: its ETag (changed by any rewrite)."""
    found = s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])
    return {item["Key"]: item["ETag"] for item in found}


def parts(s3: Any, website_id: int, day: str) -> list[str]:
    prefix = f"{layout.PARTS}/website_id={website_id}/day={day}/"
    return sorted(key for key in stored(s3) if key.startswith(prefix))


def test_the_hourly_run_writes_parts_and_never_a_day_s_file(bucket, tmp_path):
    start = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
    first, second = rows(7, 30, start), rows(8, 5, start)
    land(bucket, tmp_path, first + second, "a")
    land(bucket, tmp_path, first[:10], "b")  # a message's rows sent again
    done = compaction.run()
    assert done == {
        **{"removed": 0, "error_files": 0, "reingested": 0, "parked": 0},
        **{"landing_files": 2, "partitions": 2, "rows": 35},  # deduplicated within the run
    }
    [part] = parts(bucket, 7, "2026-11-21")
    assert set(stored(bucket)) == {part, *parts(bucket, 8, "2026-11-21")}  # no landing left
    stored_part = read(bucket, part)
    assert sorted(hit for hit, _ in stored_part) == sorted(row["hit_id"] for row in first)
    assert [ts for _, ts in stored_part] == sorted(ts for _, ts in stored_part)
    # The daily merge folds the parts into the day's file, with its summaries.
    assert compaction.run(merge=True) == {"merged": 2, "parts": 2, "rows": 35, "left": 0}
    merged = stored(bucket)
    assert set(merged) == {
        *(compaction.compacted_file(site, "2026-11-21") for site in (7, 8)),
        *(
            summaries.file(name, site, "2026-11-21")
            for name in summaries.COLUMNS
            for site in (7, 8)
        ),
    }
    # Later rows of a merged day, one a copy: a new part; the day's file is not rewritten.
    late = rows(7, 3, start + timedelta(hours=2))
    land(bucket, tmp_path, [*late, first[0]], "c")
    assert compaction.run()["rows"] == 4
    after_hourly = stored(bucket)
    assert {key: after_hourly[key] for key in merged} == merged  # not one byte rewritten
    [late_part] = parts(bucket, 7, "2026-11-21")
    assert len(read(bucket, late_part)) == 4
    # The next daily merge folds the late part: one row per hit id, sorted.
    assert compaction.run(merge=True)["merged"] == 1
    final = read(bucket, compaction.compacted_file(7, "2026-11-21"))
    assert sorted(hit for hit, _ in final) == sorted(r["hit_id"] for r in [*first, *late])
    assert [ts for _, ts in final] == sorted(ts for _, ts in final)
    assert parts(bucket, 7, "2026-11-21") == []
    assert (
        stored(bucket)[compaction.compacted_file(8, "2026-11-21")]
        == merged[compaction.compacted_file(8, "2026-11-21")]
    )  # a day without new parts is left alone


def test_the_daily_merge_leaves_today_s_parts(bucket, tmp_path, monkeypatch):
    now = datetime(2026, 11, 21, 23, 0, tzinfo=UTC)
    monkeypatch.setattr(clock, "now", lambda: now)
    land(bucket, tmp_path, rows(7, 3, datetime(2026, 11, 21, 10, tzinfo=UTC)), "a")
    compaction.run()
    assert compaction.run(merge=True) == {"merged": 0, "parts": 0, "rows": 0, "left": 0}
    assert len(parts(bucket, 7, "2026-11-21")) == 1  # the day is not closed
    monkeypatch.setattr(clock, "now", lambda: now + timedelta(hours=2))
    app = gateway.load_module(gateway.ROOT / "functions/analytics/compact/app.py")
    done = app.handler({"merge": True}, gateway.LambdaContext("CompactionFunction"))
    assert done == {"merged": 1, "parts": 1, "rows": 3, "left": 0}
    assert parts(bucket, 7, "2026-11-21") == []


def test_a_compaction_that_fails_to_put_removes_no_landing(bucket, tmp_path, monkeypatch):
    land(bucket, tmp_path, rows(7, 4, datetime(2026, 11, 21, 10, tzinfo=UTC)), "a")

    def refused(path: Path, key: str) -> None:
        raise RuntimeError("S3 refused the put")

    monkeypatch.setattr(warehouse, "upload", refused)
    with pytest.raises(RuntimeError):
        compaction.run()
    keys = [item["Key"] for item in bucket.list_objects_v2(Bucket=BUCKET)["Contents"]]
    assert keys == ["landing/hour=2026-11-21-10/a.parquet"]
    monkeypatch.undo()
    monkeypatch.setenv("SITELENS_EVENTS_BUCKET", BUCKET)
    config.reset()
    assert compaction.run()["rows"] == 4


def test_site_days_compacted_before_summaries_get_them_by_a_backfill(bucket, tmp_path):
    land(bucket, tmp_path, rows(7, 12, datetime(2026, 11, 21, 10, tzinfo=UTC)), "a")
    compaction.run()
    compaction.run(merge=True)
    visits_key = summaries.file(summaries.VISITS, 7, "2026-11-21")
    before = bucket.get_object(Bucket=BUCKET, Key=visits_key)["Body"].read()
    for name in summaries.COLUMNS:  # as a deployment from before summaries has it
        bucket.delete_object(Bucket=BUCKET, Key=summaries.file(name, 7, "2026-11-21"))
    app = gateway.load_module(gateway.ROOT / "functions/analytics/compact/app.py")
    done = app.handler({"backfill": True}, gateway.LambdaContext("CompactionFunction"))
    assert done == {"summarised": 1, "left": 0}
    assert bucket.get_object(Bucket=BUCKET, Key=visits_key)["Body"].read() == before
    assert app.handler({"backfill": True}, gateway.LambdaContext("CompactionFunction")) == {
        "summarised": 0,
        "left": 0,
    }


def test_make_serve_s_compaction_backfills_its_folder(tmp_path):
    store = LocalWarehouse(tmp_path)
    store.write(rows(7, 5, datetime(2026, 11, 21, 10, tzinfo=UTC)))
    store.compact()
    store.merge(date(2026, 11, 22))
    summary = tmp_path / summaries.file(summaries.PAGES, 7, "2026-11-21")
    summary.unlink()
    store.compact()  # nothing landed since: the missing summary is written all the same
    assert summary.exists()
    store.close()


def test_the_local_warehouse_runs_duckdb_on_the_threads_it_is_given(tmp_path, monkeypatch):
    """SITELENS_LOCAL_WAREHOUSE_THREADS (the tests set 1); unset, DuckDB's own: a core each."""
    threads = "SELECT current_setting('threads')"
    default = duckdb.connect().execute(threads).fetchall()
    for given, expected in (("1", [(1,)]), ("", default)):
        monkeypatch.setenv("SITELENS_LOCAL_WAREHOUSE_THREADS", given)
        local = LocalWarehouse(tmp_path / f"threads-{given}")
        try:
            assert local.run(threads) == expected
        finally:
            local.close()


def test_make_serve_runs_both_levels_on_the_template_s_schedules(aws_env, monkeypatch):
    """The local worker gives each of CompactionFunction's schedules its Input: the hourly
    run gets nothing, the daily merge `{"merge": true}`."""
    from sitelens.local import worker

    for kind in (worker.QueueWorker, worker.ScheduleWorker, worker.TallyFlusher):
        monkeypatch.setattr(kind, "start", lambda self: None)
    found = worker.start_all(TEMPLATE)
    events = [
        w.event
        for w in found
        if isinstance(w, worker.ScheduleWorker) and w.function == "CompactionFunction"
    ]
    assert sorted(events, key=len) == [{}, {"merge": True}]
