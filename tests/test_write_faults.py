"""Writes under DynamoDB's own failures and races, injected in botocore's HTTP layer: a
cancelled transaction, throttling, a write that came first. Every answer tells the truth
and the stored state is what the acknowledged requests made."""

from __future__ import annotations

from typing import Any

import boto3
import pytest

from sitelens import config
from sitelens.data import projects, records
from sitelens.data import reports as stored_reports
from sitelens.data import websites as stored_websites
from tests.fixtures.faults import THROTTLED, FaultPlan, cancelled, injected
from tests.fixtures.site import Site


@pytest.fixture(scope="module")
def site():
    served = Site()
    yield served
    served.close()


@pytest.fixture
def seo(seo, monkeypatch):
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    config.reset()
    yield seo
    config.reset()


def project_row(account_id: str, project: str) -> dict[str, Any] | None:
    answer = boto3.client("dynamodb").get_item(
        TableName=config.settings().projects_table,
        Key={"account": {"S": account_id}, "project": {"S": project}},
    )
    return answer.get("Item")


# -- cancellations that are not condition failures are retried ------------------------------


def test_a_create_cancelled_by_a_transaction_conflict_is_retried(analytics, account):
    plan = FaultPlan("TransactWriteItems", {0: cancelled("None", "TransactionConflict")})
    with injected(plan):
        reply = analytics.post("/api/v1/websites", {"domain": "example.com"})
    assert reply.status == 201, reply.body
    assert len(plan.requests) == 2
    # A new attempt is a new transaction: its own idempotency token.
    tokens = {request["ClientRequestToken"] for request in plan.requests}
    assert len(tokens) == 2
    assert stored_websites.get(account.id, reply.data["id"])["domain"] == "example.com"


def test_throttling_is_retried_by_botocore_with_the_same_token(analytics, account):
    plan = FaultPlan("TransactWriteItems", {0: THROTTLED, 1: THROTTLED})
    with injected(plan):
        reply = analytics.post("/api/v1/websites", {"domain": "example.com"})
    assert reply.status == 201, reply.body
    # botocore resent one request: if an answer had been lost, DynamoDB would not apply
    # it twice, so the caller's own domain is never "already taken" by itself.
    assert len(plan.requests) == 3
    assert len({request["ClientRequestToken"] for request in plan.requests}) == 1


def test_report_writes_retry_conflicts_on_the_project_row(seo, account, site):
    url = site.url("/good")
    plan = FaultPlan("TransactWriteItems", {0: cancelled("None", "TransactionConflict")})
    with injected(plan):
        created = seo.post("/api/v1/reports", {"url": url})
    assert created.status == 201, created.body
    report = created.data
    row = project_row(account.id, report["project"])
    assert row["reports"]["N"] == "1" and row["score_total"]["N"] == str(report["score"])

    plan = FaultPlan("TransactWriteItems", {0: cancelled("None", "TransactionConflict")})
    with injected(plan):
        assert seo.delete(f"/api/v1/reports/{report['id']}").status == 200
    assert len(plan.requests) == 2
    assert project_row(account.id, report["project"]) is None


def test_endless_contention_answers_409_and_changes_nothing(seo, account, site, monkeypatch):
    monkeypatch.setattr("sitelens.data.transactions.backoff", lambda attempt: None)
    report = seo.post("/api/v1/reports", {"url": site.url("/good")}).data
    always = FaultPlan(
        "TransactWriteItems", {n: cancelled("None", "TransactionConflict") for n in range(50)}
    )
    with injected(always):
        reply = seo.delete(f"/api/v1/reports/{report['id']}")
    assert reply.status == 409
    assert reply.body == {
        "message": "The resource was changed by another request at the same time. Try again.",
        "status": 409,
    }
    assert seo.get(f"/api/v1/reports/{report['id']}").status == 200
    assert project_row(account.id, report["project"])["reports"]["N"] == "1"


# -- a write that came first ----------------------------------------------------------------


def test_an_update_raced_by_another_keeps_both_and_neither_is_lost(analytics, account):
    website = analytics.post("/api/v1/websites", {"domain": "example.com"}).data

    def concurrent_update() -> None:
        """Another request's update lands between this one's read and its write."""
        other = analytics.put(f"/api/v1/websites/{website['id']}", {"email": "1"})
        assert other.status == 200

    plan = FaultPlan("PutItem", {0: concurrent_update})
    with injected(plan):
        reply = analytics.put(f"/api/v1/websites/{website['id']}", {"favorite": "1"})
    assert reply.status == 200
    # Applied after the other one, on what it stored: both changes are there.
    assert (reply.data["email"], reply.data["favorite"]) == (1, True)
    stored = stored_websites.get(account.id, website["id"])
    assert (stored["email"], stored["favorite"], stored["version"]) == (1, True, 3)
    assert reply.data["updated_at"] == stored["updated_at"] > website["updated_at"]


def test_a_delete_raced_by_a_regeneration_takes_the_regenerated_score_out(seo, account, site):
    site.pages["/changing"] = site.pages["/good"]
    report = seo.post("/api/v1/reports", {"url": site.url("/changing")}).data

    def regeneration() -> None:
        site.pages["/changing"] = site.pages["/poor"]
        assert seo.put(f"/api/v1/reports/{report['id']}", {"results": "1"}).status == 200

    plan = FaultPlan("TransactWriteItems", {0: regeneration})
    with injected(plan):
        assert seo.delete(f"/api/v1/reports/{report['id']}").status == 200
    # The project lost exactly the report that existed: nothing left over, nothing twice.
    assert project_row(account.id, report["project"]) is None


def test_a_legacy_record_without_a_version_is_updated_once(analytics, account):
    website = analytics.post("/api/v1/websites", {"domain": "example.com"}).data
    boto3.client("dynamodb").update_item(
        TableName=config.settings().websites_table,
        Key={"account": {"S": account.id}, "id": {"N": str(website["id"])}},
        UpdateExpression="REMOVE version, write_id",
    )
    reply = analytics.put(f"/api/v1/websites/{website['id']}", {"email": "1"})
    assert reply.status == 200 and reply.data["email"] == 1
    assert stored_websites.get(account.id, website["id"])["version"] == 1


def test_an_oversized_item_is_refused_before_writing(aws_env):
    record = {"account": "1", "id": 1, "url": "u", "project": "p", "score": 1}
    record.update(result="bad", generated_at="g", created_at="c", updated_at="u")
    record["results"] = "x" * 400_000
    with pytest.raises(records.transactions.ItemTooLarge):
        stored_reports.create_with_project(record)
    assert stored_reports.get("1", 1) is None
    assert projects.COLLECTION.table()
