"""Access logs pulled from the customer's S3 prefix as the role they grant (moto's STS and
S3): PUT/DELETE /api/v1/websites/{id}/logs/source, the hourly pull through its function,
the checkpoint by object key (a run again reads nothing twice), a refused role."""

from __future__ import annotations

import gzip
import json
import uuid
from typing import Any

import boto3
import pytest

from sitelens.analytics.crawls import pulls
from sitelens.core import scopes
from sitelens.data import checkpoints
from tests.integration.crawls.test_crawl_logs import (  # noqa: F401 - fixtures, by name
    AHREFS,
    DAY,
    ELSEWHERE,
    GPT_ADDRESS,
    GPTBOT,
    combined,
    crawls,
    dns,
    local_warehouse,
    served,
)

ROLE = "arn:aws:iam::210987654321:role/sitelens-logs"
pytestmark = pytest.mark.usefixtures("served")


def run_schedule() -> dict[str, Any]:
    """The hourly function, as EventBridge Scheduler invokes it."""
    from sitelens.local import gateway

    module = gateway.load_module(gateway.ROOT / "functions/tasks/crawl_pulls/app.py")
    context = gateway.LambdaContext("CrawlPullsFunction")
    context.get_remaining_time_in_millis = lambda: 900_000  # type: ignore[method-assign]
    event = json.loads((gateway.ROOT / "events/crawl-pulls.json").read_text())  # sam local invoke's
    return dict(module.handler(event, context))


class Bucket:
    """The customer's bucket (a name of its own: moto's S3 outlives a test)."""

    def __init__(self) -> None:
        self.name = f"customer-logs-{uuid.uuid4().hex[:12]}"
        self.s3 = boto3.client("s3", region_name="us-east-1")
        self.s3.create_bucket(Bucket=self.name)


def put_log(bucket: Bucket, key: str, lines: list[str]) -> None:
    body = gzip.compress("\n".join(lines).encode())
    bucket.s3.put_object(Bucket=bucket.name, Key=key, Body=body)


@pytest.fixture
def s3() -> Bucket:
    return Bucket()


def test_a_source_s_new_objects_are_pulled_once(analytics, account, s3):
    site = int(analytics.post("/api/v1/websites", {"domain": "pulled.example"}).data["id"])
    put_log(s3, "cf/E1.2026-11-27-10.a.gz", [combined(GPT_ADDRESS, GPTBOT, "/a")])
    put_log(s3, "other/E1.2026-11-27-10.b.gz", [combined(ELSEWHERE, AHREFS, "/x")])  # not theirs
    source = {"role_arn": ROLE, "bucket": s3.name, "prefix": "cf/", "format": "combined"}
    answer = analytics.request("PUT", f"/api/v1/websites/{site}/logs/source", json_body=source)
    assert answer.status == 200, answer.body
    assert answer.data["external_id"] == f"sitelens-{account.id}"
    assert answer.data["last_key"] is None
    assert run_schedule()["objects"] == 1
    put_log(s3, "cf/E1.2026-11-27-11.c.gz", [combined(ELSEWHERE, AHREFS, "/b"), "garbage"])
    put_log(s3, "cf/E1.2026-11-27-12.d.gz", ["<html>no log</html>"])  # skipped, passed
    outcome = run_schedule()
    assert (outcome["objects"], outcome["crawls"]) == (2, 1)
    assert run_schedule()["objects"] == 0  # nothing read twice
    assert checkpoints.last(pulls.job(site)) == "cf/E1.2026-11-27-12.d.gz"
    assert crawls(analytics, site, ["crawl:bot"]) == [["AhrefsBot", 1], ["GPTBot", 1]]
    shown = analytics.request("PUT", f"/api/v1/websites/{site}/logs/source", json_body=source)
    assert shown.data["last_key"] == "cf/E1.2026-11-27-12.d.gz"
    stopped = analytics.delete(f"/api/v1/websites/{site}/logs/source")
    assert (stopped.status, stopped.body) == (204, None)  # no body, not even `null`
    assert analytics.delete(f"/api/v1/websites/{site}/logs/source").status == 404
    put_log(s3, "cf/E1.2026-11-27-13.e.gz", [combined(ELSEWHERE, AHREFS, "/c")])
    assert run_schedule()["sources"] == 0


def test_a_refused_bucket_moves_nothing_and_the_next_source_runs(analytics, s3):
    first = int(analytics.post("/api/v1/websites", {"domain": "a.example"}).data["id"])
    second = int(analytics.post("/api/v1/websites", {"domain": "b.example"}).data["id"])
    missing = {"role_arn": ROLE, "bucket": "no-such-bucket-here"}
    found = {"role_arn": ROLE, "bucket": s3.name}
    for site, source in ((first, missing), (second, found)):
        put = analytics.request("PUT", f"/api/v1/websites/{site}/logs/source", json_body=source)
        assert put.status == 200, put.body
    put_log(s3, "E1.2026-11-27-10.a.gz", [combined(GPT_ADDRESS, GPTBOT, "/a")])
    outcome = run_schedule()
    assert (outcome["failed"], outcome["objects"]) == (1, 1)
    assert checkpoints.last(pulls.job(first)) is None


def test_sources_are_the_account_s(analytics, other_analytics, s3):
    site = int(analytics.post("/api/v1/websites", {"domain": "mine.example"}).data["id"])
    source = {"role_arn": ROLE, "bucket": s3.name}
    path = f"/api/v1/websites/{site}/logs/source"
    assert other_analytics.request("PUT", path, json_body=source).status == 404
    assert analytics.request("PUT", path, json_body={**source, "role_arn": "x"}).status == 422
    assert analytics.request("PUT", path, json_body=source).status == 200
    assert other_analytics.delete(path).status == 404
    with scopes.within(scopes.Scope()), pytest.raises(scopes.Undeclared):
        from sitelens.data import crawl_sources

        crawl_sources.every()  # every account's sources: the system's read alone
