"""POST /api/v1/websites/{id}/exports and GET .../exports/{export_id}: a website's raw events
of a date range as Parquet or CSV, made by a task of the tasks queue, read back with pyarrow;
delivered to the customer's bucket through the role they grant (moto's STS and S3)."""

from __future__ import annotations

import csv
import io
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pyarrow.parquet as pq
import pytest

from sitelens.analytics import exports
from sitelens.analytics.hit import Hit
from sitelens.analytics.warehouse import schema
from sitelens.core import config
from sitelens.data import warehouse
from tests.fixtures.analytics import hit_record, run
from tests.fixtures.local_warehouse import local_warehouse  # noqa: F401

NOW = datetime.now(UTC).replace(microsecond=0)
YESTERDAY = (NOW - timedelta(days=1)).replace(hour=9, minute=0, second=0)


@pytest.fixture
def served(local_warehouse, tmp_path, monkeypatch):  # noqa: F811
    """make serve's engine: the warehouse's folder is read in place, the file goes to a folder."""
    monkeypatch.setenv("SITELENS_LOCAL_EXPORTS_DIR", str(tmp_path / "exports"))
    engine = warehouse.local_engine()
    assert engine is not None
    warehouse.use(
        warehouse.LocalEngine("duckdb", engine.query, engine.store, root=local_warehouse.root)
    )
    return local_warehouse


def count(account_id: str, website_id: int, pages: list[str], at: datetime = YESTERDAY) -> None:
    hits = [
        Hit(website_id=website_id, at=at + timedelta(seconds=n), page=page, visit=True)
        for n, page in enumerate(pages)
    ]
    batch = [hit_record(hit, account_id, n) for n, hit in enumerate(hits)]
    assert run("HitsQueue", batch) == {"batchItemFailures": []}


def tasks_waiting() -> list[dict[str, Any]]:
    """The tasks queue's messages, received (as the event source would) and deleted."""
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = config.settings().task_queue_url
    found = []
    while True:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not got:
            return found
        for message in got:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            found.append(
                {
                    "messageId": message["MessageId"],
                    "receiptHandle": message["ReceiptHandle"],
                    "body": message["Body"],
                    "attributes": {"ApproximateReceiveCount": "1"},
                    "messageAttributes": {},
                    "eventSource": "aws:sqs",
                }
            )


def day(moment: datetime) -> str:
    return moment.date().isoformat()


def test_an_export_is_the_site_s_rows_once_read_back_with_pyarrow(analytics, account, served):
    site = analytics.post("/api/v1/websites", {"domain": "export.example"}).data
    other = analytics.post("/api/v1/websites", {"domain": "other.example"}).data
    count(account.id, site["id"], ["/a", "/b", "/c"])
    count(account.id, other["id"], ["/not-this-site"])
    served.compact()  # some rows in parts...
    count(account.id, site["id"], ["/d"], YESTERDAY + timedelta(hours=1))  # ...one in landing
    count(account.id, site["id"], ["/too-old"], YESTERDAY - timedelta(days=3))

    form = {"from": day(YESTERDAY), "to": day(NOW), "format": "parquet"}
    reply = analytics.post(f"/api/v1/websites/{site['id']}/exports", form)
    assert reply.status == 202, reply.body
    export = reply.data
    assert export["status"] == "queued" and export["url"] is None
    assert export["schema_version"] == exports.SCHEMA_VERSION
    [task] = tasks_waiting()
    assert run("TasksQueue", [task]) == {"batchItemFailures": []}

    done = analytics.get(f"/api/v1/websites/{site['id']}/exports/{export['id']}").data
    assert done["status"] == "done" and done["rows"] == 4 and done["progress"] == 1
    assert done["url"].startswith("file://")
    table = pq.read_table(done["path"])
    assert table.column_names == [
        "website_id",
        "day",
        *schema.COLUMN_NAMES,
        "schema_version",
    ]
    rows = table.to_pylist()
    assert [row["page"] for row in rows] == ["/a", "/b", "/c", "/d"]  # by time, each once
    assert {row["website_id"] for row in rows} == {site["id"]}
    assert {row["schema_version"] for row in rows} == {1}
    assert len({row["hit_id"] for row in rows}) == 4


def test_a_redelivered_export_task_writes_its_object_once(analytics, account, served):
    site = analytics.post("/api/v1/websites", {"domain": "again.example"}).data
    count(account.id, site["id"], ["/a", "/b"])
    form = {"from": day(YESTERDAY), "to": day(YESTERDAY), "format": "csv"}
    export = analytics.post(f"/api/v1/websites/{site['id']}/exports", form).data
    [task] = tasks_waiting()
    assert run("TasksQueue", [task]) == {"batchItemFailures": []}
    done = analytics.get(f"/api/v1/websites/{site['id']}/exports/{export['id']}").data
    path = Path(done["path"])
    written = path.stat().st_mtime_ns
    text = path.read_text()
    assert run("TasksQueue", [task]) == {"batchItemFailures": []}  # delivered again
    assert path.stat().st_mtime_ns == written and path.read_text() == text
    assert [p.name for p in path.parent.iterdir()] == ["events.csv"]
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [row["page"] for row in rows] == ["/a", "/b"]
    assert rows[0]["schema_version"] == "1"
    again = analytics.get(f"/api/v1/websites/{site['id']}/exports/{export['id']}").data
    assert again["url"] == done["url"] and again["rows"] == 2


def test_a_retried_export_task_writes_the_same_object(analytics, account, served):
    """A run killed after its file was put and before its record said so runs again."""
    site = analytics.post("/api/v1/websites", {"domain": "retry.example"}).data
    count(account.id, site["id"], ["/a", "/b", "/c"])
    form = {"from": day(YESTERDAY), "to": day(YESTERDAY)}
    export = analytics.post(f"/api/v1/websites/{site['id']}/exports", form).data
    exports.run(account.id, export["id"])
    path = Path(analytics.get(f"/api/v1/websites/{site['id']}/exports/{export['id']}").data["path"])
    first = path.read_bytes()
    exports.stored_exports.set_fields(account.id, export["id"], {"status": "running"}, False)
    exports.run(account.id, export["id"])
    assert path.read_bytes() == first


@pytest.mark.parametrize(
    ("form", "field"),
    [
        ({"from": "2026-01-10", "to": "2026-01-01"}, "to"),
        ({"from": "2024-01-01", "to": "2025-06-01"}, "to"),
        ({"from": "2026-01-01", "to": "2999-01-01"}, "to"),
        ({"from": "yesterday", "to": "2026-01-01"}, "from"),
        ({"to": "2026-01-01"}, "from"),
        ({"from": "2026-01-01", "to": "2026-01-02", "format": "xlsx"}, "format"),
        (
            {
                "from": "2026-01-01",
                "to": "2026-01-02",
                "delivery": {"role_arn": "x", "bucket": "b"},
            },
            "delivery",
        ),
    ],
)
def test_a_bad_range_or_format_is_422(analytics, form, field):
    site = analytics.post("/api/v1/websites", {"domain": "bad.example"}).data
    reply = analytics.post(f"/api/v1/websites/{site['id']}/exports", json_body=form)
    assert reply.status == 422, reply.body
    assert list(reply.body["message"]) == [field]


def test_another_account_s_website_and_export_are_404(analytics, other_analytics, served):
    site = analytics.post("/api/v1/websites", {"domain": "mine.example"}).data
    form = {"from": day(YESTERDAY), "to": day(YESTERDAY)}
    assert other_analytics.post(f"/api/v1/websites/{site['id']}/exports", form).status == 404
    export = analytics.post(f"/api/v1/websites/{site['id']}/exports", form).data
    assert (
        other_analytics.get(f"/api/v1/websites/{site['id']}/exports/{export['id']}").status == 404
    )
    theirs = other_analytics.post("/api/v1/websites", {"domain": "theirs.example"}).data
    # the account's export, asked for under another website's id
    assert analytics.get(f"/api/v1/websites/{theirs['id']}/exports/{export['id']}").status == 404
    assert analytics.get(f"/api/v1/websites/{site['id']}/exports/99").status == 404


def test_an_export_over_the_row_bound_fails_saying_to_split_it(
    analytics, account, served, monkeypatch
):
    monkeypatch.setattr(exports, "MAX_ROWS", 2)
    site = analytics.post("/api/v1/websites", {"domain": "big.example"}).data
    count(account.id, site["id"], ["/a", "/b", "/c"])
    form = {"from": day(YESTERDAY), "to": day(YESTERDAY)}
    export = analytics.post(f"/api/v1/websites/{site['id']}/exports", form).data
    assert run("TasksQueue", tasks_waiting()) == {"batchItemFailures": []}
    failed = analytics.get(f"/api/v1/websites/{site['id']}/exports/{export['id']}").data
    assert failed["status"] == "failed" and failed["url"] is None
    assert "split it" in failed["error"]


@pytest.fixture
def deployed(aws_env, monkeypatch, tmp_path):
    """Deployed: the warehouse's files in the events bucket (moto), the file presigned."""
    bucket = f"events-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("SITELENS_EVENTS_BUCKET", bucket)
    config.reset()
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket=bucket)
    from sitelens.local.warehouse import LocalWarehouse

    local = LocalWarehouse(tmp_path / "rows")
    warehouse.use(warehouse.LocalEngine("duckdb", local.run, local.write))
    yield s3, bucket, local
    local.close()


def upload_folder(s3: Any, bucket: str, root: Path) -> None:
    for path in root.rglob("*.parquet"):
        s3.upload_file(str(path), bucket, str(path.relative_to(root)))


def test_deployed_the_file_is_presigned_and_delivered_to_the_customer_s_bucket(
    analytics, account, deployed
):
    s3, bucket, local = deployed
    site = analytics.post("/api/v1/websites", {"domain": "deployed.example"}).data
    count(account.id, site["id"], ["/a", "/b"])
    local.compact()
    upload_folder(s3, bucket, local.root)
    warehouse.use(None)  # deployed: S3, not make serve's folder
    s3.create_bucket(Bucket="customer-exports")
    delivery = {
        "role_arn": "arn:aws:iam::210987654321:role/sitelens-export",
        "bucket": "customer-exports",
        "prefix": "sitelens/",
    }
    form = {"from": day(YESTERDAY), "to": day(YESTERDAY), "delivery": delivery}
    export = analytics.post(f"/api/v1/websites/{site['id']}/exports", json_body=form).data
    assert export["delivery"]["external_id"] == f"sitelens-{account.id}"
    assert run("TasksQueue", tasks_waiting()) == {"batchItemFailures": []}
    done = analytics.get(f"/api/v1/websites/{site['id']}/exports/{export['id']}").data
    assert done["status"] == "done" and done["rows"] == 2
    assert done["url"].startswith("https://") and "Signature=" in done["url"]
    key = f"exports/website_id={site['id']}/{export['id']}/events.parquet"
    assert key.replace("=", "%3D") in done["url"]
    theirs = s3.get_object(Bucket="customer-exports", Key=f"sitelens/{key}")["Body"].read()
    ours = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    assert theirs == ours
    assert done["delivery"]["key"] == f"sitelens/{key}"
    table = pq.read_table(io.BytesIO(ours))
    assert table.column("page").to_pylist() == ["/a", "/b"]


def test_a_refused_delivery_fails_the_export_saying_so(analytics, account, deployed):
    _s3, _bucket, _local = deployed
    warehouse.use(None)
    site = analytics.post("/api/v1/websites", {"domain": "refused.example"}).data
    delivery = {"role_arn": "arn:aws:iam::210987654321:role/x", "bucket": "no-such-bucket-here"}
    form = {"from": day(YESTERDAY), "to": day(YESTERDAY), "delivery": delivery}
    export = analytics.post(f"/api/v1/websites/{site['id']}/exports", json_body=form).data
    assert run("TasksQueue", tasks_waiting()) == {"batchItemFailures": []}
    failed = analytics.get(f"/api/v1/websites/{site['id']}/exports/{export['id']}").data
    assert failed["status"] == "failed" and "delivery was refused" in failed["error"]
    assert json.dumps(failed)  # plain JSON


def test_the_schema_version_moves_with_the_warehouse_s_columns_and_its_docs():
    """A column added to the warehouse without a new export schema version fails here."""
    assert len(schema.COLUMNS) == exports.SCHEMA_COLUMNS, "bump exports.SCHEMA_VERSION"
    docs = (Path(__file__).parents[3] / "docs" / "exports.md").read_text()
    assert f"schema version {exports.SCHEMA_VERSION}" in docs
    listed = docs.split("## The file", 1)[1].split("## How", 1)[0]
    assert all(f"`{name}`" in listed for name in schema.COLUMN_NAMES)
