"""The warehouse's layout as deployed: the Glue tables say what the code writes, landing
does not depend on the sites, and the deployed compaction (S3, DuckDB) merges landing
into one deduplicated, sorted file per site and day, removing landing only afterwards."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest

from sitelens.analytics.warehouse import compaction, schema, summaries
from sitelens.core import config
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


def test_the_deployed_compaction_merges_dedupes_and_sorts(bucket, tmp_path):
    start = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
    first, second = rows(7, 30, start), rows(8, 5, start)
    land(bucket, tmp_path, first + second, "a")
    land(bucket, tmp_path, first[:10], "b")  # a message's rows sent again
    done = compaction.run()
    assert done == {
        **{"removed": 0, "error_files": 0, "reingested": 0, "parked": 0},
        **{"landing_files": 2, "partitions": 2, "rows": 35},
    }
    keys = {item["Key"] for item in bucket.list_objects_v2(Bucket=BUCKET)["Contents"]}
    # each site-day's file, and its summaries beside it
    assert keys == {
        *(compaction.compacted_file(site, "2026-11-21") for site in (7, 8)),
        *(
            summaries.file(name, site, "2026-11-21")
            for name in summaries.COLUMNS
            for site in (7, 8)
        ),
    }
    stored = read(bucket, compaction.compacted_file(7, "2026-11-21"))
    assert sorted(hit for hit, _ in stored) == sorted(row["hit_id"] for row in first)
    assert [ts for _, ts in stored] == sorted(ts for _, ts in stored)
    # Later rows of a compacted day, one a copy: merged into the same file, once each.
    late = rows(7, 3, start + timedelta(hours=2))
    land(bucket, tmp_path, [*late, first[0]], "c")
    assert compaction.run()["rows"] == 33
    assert len(read(bucket, compaction.compacted_file(7, "2026-11-21"))) == 33


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
