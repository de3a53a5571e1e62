"""Imports as a client makes them: a multipart upload over HTTP to `make serve`'s gateway,
then the query over HTTP; and deployed, an object of the customer's bucket read through the
role they grant (moto's STS and S3), its tables in the events bucket, removed by DELETE."""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from typing import Any

import boto3
import pytest

from sitelens.core import config
from sitelens.data import warehouse
from sitelens.local import STOP_POLL_SECONDS, gateway, template
from sitelens.local.front import request_handler
from tests.fixtures.analytics import run
from tests.fixtures.local_warehouse import local_warehouse  # noqa: F401
from tests.integration.exports.test_event_exports import deployed, tasks_waiting
from tests.integration.imports import files
from tests.integration.imports.test_imports import FIRST, JANUARY, new_site, served

__all__ = ["deployed", "served"]  # fixtures, used by name


@pytest.fixture
def over_http(served) -> Iterator[str]:
    """The analytics API over HTTP, as `make serve` serves it: its base URL."""
    routes = template.routes(template.load())
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), request_handler(gateway.Gateway("AnalyticsApi", routes))
    )
    threading.Thread(target=server.serve_forever, args=(STOP_POLL_SECONDS,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def call(url: str, key: str, body: bytes | None = None, content_type: str = "") -> Any:
    headers = {"Authorization": f"Bearer {key}"}
    if content_type:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(url, data=body, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return answer.status, json.loads(answer.read())


def test_a_plausible_zip_uploaded_over_http_is_answered_over_http(analytics, account, over_http):
    site = new_site(analytics, "http-import.example")
    body, content_type = files.multipart(files.plausible_zip(FIRST), "plausible.zip")
    status, created = call(
        f"{over_http}/api/v1/websites/{site}/imports", account.key, body, content_type
    )
    assert status == 202 and created["data"]["status"] == "queued"
    assert run("TasksQueue", tasks_waiting()) == {"batchItemFailures": []}
    path = f"{over_http}/api/v1/websites/{site}/imports/{created['data']['id']}"
    status, shown = call(path, account.key)
    assert status == 200 and shown["data"]["status"] == "done"
    question = {
        "site_id": site,
        "date_range": JANUARY,
        "metrics": ["visitors", "pageviews", "bounce_rate"],
        "include": {"imports": True},
    }
    status, answer = call(
        f"{over_http}/api/v1/query", account.key, json.dumps(question).encode(), "application/json"
    )
    assert status == 200
    assert answer["results"] == [{"dimensions": [], "metrics": [35, 85, 42.9]}]
    assert answer["meta"]["imports_included"] is True


def test_deployed_an_object_of_the_customer_s_bucket_is_read_as_their_role(
    analytics, account, deployed, monkeypatch
):
    s3, bucket, _local = deployed
    monkeypatch.setenv("SITELENS_ATHENA_WORKGROUP", "primary")  # Athena answers include.imports
    monkeypatch.setenv("SITELENS_EVENTS_DATABASE", "sitelens_events")
    config.reset()
    warehouse.use(None)  # deployed: the events bucket, not make serve's folder
    s3.create_bucket(Bucket="customer-history")
    s3.put_object(Bucket="customer-history", Key="ga4/report.json", Body=files.ga4_report(FIRST))
    site = new_site(analytics, "bucket-import.example")
    source = {
        "role_arn": "arn:aws:iam::210987654321:role/sitelens-import",
        "bucket": "customer-history",
        "key": "ga4/report.json",
    }
    reply = analytics.post(f"/api/v1/websites/{site}/imports", json_body={"source": source})
    assert reply.status == 202, reply.body
    assert reply.data["source"]["external_id"] == f"sitelens-{account.id}"
    assert run("TasksQueue", tasks_waiting()) == {"batchItemFailures": []}
    done = analytics.get(f"/api/v1/websites/{site}/imports/{reply.data['id']}").data
    assert done["status"] == "done" and done["format"] == "ga4_report", done
    prefix = f"imported/website_id={site}/import_id={done['id']}/"
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix=prefix)["Contents"]]
    assert sorted(keys) == [
        f"{prefix}imported_locations/data.parquet",  # a folder a table: its Glue partition
        f"{prefix}imported_visitors/data.parquet",
    ]
    sent = {
        "site_id": site,
        "date_range": JANUARY,
        "metrics": ["visitors"],
        "include": {"imports": True},
    }
    # Athena (moto: no rows) is asked the imported sums of the Glue table's partitions
    answered = analytics.post("/api/v1/query", json_body=sent)
    assert answered.status == 200, answered.body
    assert answered.body["meta"]["imports_included"] is True
    athena = boto3.client("athena", region_name="us-east-1")
    asked = [
        athena.get_query_execution(QueryExecutionId=n)["QueryExecution"]["Query"]
        for n in athena.list_query_executions()["QueryExecutionIds"]
    ]
    partitions = f"website_id = {site} AND import_id IN ({done['id']})"
    assert any("FROM imported_visitors" in text and partitions in text for text in asked)
    assert analytics.delete(f"/api/v1/websites/{site}/imports/{done['id']}").status == 200
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket, Prefix=prefix)


def test_a_refused_source_fails_the_import_saying_so(analytics, deployed):
    warehouse.use(None)
    site = new_site(analytics, "refused-source.example")
    source = {
        "role_arn": "arn:aws:iam::210987654321:role/x",
        "bucket": "no-such-bucket",
        "key": "k",
    }
    reply = analytics.post(f"/api/v1/websites/{site}/imports", json_body={"source": source})
    assert run("TasksQueue", tasks_waiting()) == {"batchItemFailures": []}
    failed = analytics.get(f"/api/v1/websites/{site}/imports/{reply.data['id']}").data
    assert failed["status"] == "failed" and "could not be read" in failed["error"]
    s3 = boto3.client("s3", region_name="us-east-1")
    _s3, bucket, _local = deployed
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket, Prefix="imported/")


def test_an_object_over_the_bound_fails_saying_to_split_it(analytics, deployed, monkeypatch):
    s3, _bucket, _local = deployed
    warehouse.use(None)
    from sitelens.analytics.imports import jobs

    monkeypatch.setattr(jobs, "MAX_OBJECT_BYTES", 100)
    s3.create_bucket(Bucket="customer-large")
    s3.put_object(Bucket="customer-large", Key="big.json", Body=files.ga4_report(FIRST))
    site = new_site(analytics, "large-object.example")
    source = {
        "role_arn": "arn:aws:iam::210987654321:role/x",
        "bucket": "customer-large",
        "key": "big.json",
    }
    reply = analytics.post(f"/api/v1/websites/{site}/imports", json_body={"source": source})
    assert run("TasksQueue", tasks_waiting()) == {"batchItemFailures": []}
    failed = analytics.get(f"/api/v1/websites/{site}/imports/{reply.data['id']}").data
    assert failed["status"] == "failed" and "split it" in failed["error"]
