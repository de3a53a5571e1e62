"""Writes under DynamoDB's own failures and races, injected in botocore's HTTP layer: a
cancelled transaction, throttling, a write that came first. Every answer tells the truth
and the stored state is what the acknowledged requests made."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from sitelens.core import config
from sitelens.data import clients, items, projects, records, stats
from sitelens.data import reports as stored_reports
from sitelens.data import websites as stored_websites
from tests.fixtures.faults import INTERNAL, THROTTLED, FaultPlan, cancelled, error, injected


@pytest.fixture
def seo(seo, monkeypatch):
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("SITELENS_FETCH_PORTS", "1-65535")  # the test site's port
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
    monkeypatch.setattr("sitelens.data.transactions.backoff", lambda attempt, cap: None)
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


# -- a failed condition told from a conflict (`items.is_condition_failure`) -----------------


@pytest.mark.parametrize(
    ("code", "reasons", "failed"),
    [
        ("ConditionalCheckFailedException", None, True),
        ("TransactionCanceledException", ["None", "ConditionalCheckFailed"], True),
        ("TransactionCanceledException", ["ConditionalCheckFailed", "TransactionConflict"], True),
        ("TransactionCanceledException", ["None", "TransactionConflict"], False),
        ("TransactionCanceledException", ["ThrottlingError"], False),
        ("TransactionConflictException", None, False),
        ("ThrottlingException", None, False),
    ],
)
def test_only_a_condition_that_did_not_hold_is_a_condition_failure(code, reasons, failed):
    response: dict[str, Any] = {"Error": {"Code": code, "Message": "injected"}}
    if reasons is not None:
        response["CancellationReasons"] = [{"Code": reason} for reason in reasons]
    assert items.is_condition_failure(ClientError(response, "TransactWriteItems")) is failed


def test_a_registry_full_is_refused_but_a_conflict_is_raised(aws_env):
    group = (1, "page", "2026-11-21")
    full = FaultPlan("UpdateItem", {0: cancelled("ConditionalCheckFailed")})
    with injected(full):
        assert stats.register(group, {b"d" * 16}, 2, 500, 32_000) is False
    conflict = FaultPlan("UpdateItem", {0: cancelled("TransactionConflict")})
    with injected(conflict), pytest.raises(ClientError) as raised:
        stats.register(group, {b"d" * 16}, 2, 500, 32_000)  # the batch's hits come back
    assert items.cancel_reasons(raised.value) == ["TransactionConflict"]
    assert stats.registries([group])[group].digests == frozenset()  # nothing registered
    assert stats.register(group, {b"d" * 16}, 2, 500, 32_000) is True


def test_an_empty_project_row_held_by_a_transaction_is_dropped_on_a_retry(aws_env):
    table = config.settings().projects_table
    for name, reports in (("empty.example", 0), ("full.example", 1)):
        boto3.client("dynamodb").put_item(
            TableName=table,
            Item={"account": {"S": "1"}, "project": {"S": name}, "reports": {"N": str(reports)}},
        )
    conflict = error(400, "TransactionConflictException", "Transaction is ongoing for the item")
    plan = FaultPlan("DeleteItem", {0: conflict})
    with injected(plan):
        projects.drop_if_empty("1", "empty.example")
    assert len(plan.requests) == 2 and project_row("1", "empty.example") is None
    projects.drop_if_empty("1", "full.example")  # a row with reports stays
    assert project_row("1", "full.example") is not None


# -- a fault at each DynamoDB call: the answer says what was stored -------------------------


class Outage:
    """Every DynamoDB call fails with `fault` from the `first`-th one (0-based) on, for
    `length` sends in a row (more than botocore's attempts), whatever its operation."""

    def __init__(self, first: int, fault: dict[str, Any], length: int = 5) -> None:
        self.plan = FaultPlan("*", {n: fault for n in range(first, first + length)})
        self.operations: list[str] = []

    def __call__(self, request: Any, **kwargs: Any) -> Any:
        self.operations.append(request.headers["X-Amz-Target"].decode().rpartition(".")[2])
        return self.plan(request, **kwargs)

    def __enter__(self) -> Outage:
        clients.client("dynamodb").meta.events.register_first("before-send.dynamodb", self)
        return self

    def __exit__(self, *_: object) -> None:
        clients.client("dynamodb").meta.events.unregister("before-send.dynamodb", self)


@pytest.fixture
def few_attempts(monkeypatch):
    """botocore gives up after two attempts (its default ten take seconds of backoff)."""
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "2")
    clients.reset()
    yield
    clients.reset()


def calls_of(request: Any) -> list[str]:
    """The DynamoDB operations `request()` makes, in order, with no fault."""
    with Outage(10**6, THROTTLED) as watched:
        request()
    return watched.operations


@pytest.mark.parametrize("fault", [THROTTLED, INTERNAL], ids=["throttled", "internal"])
def test_a_report_delete_tells_the_truth_whichever_call_fails(
    seo, account, site, few_attempts, fault
):
    url = site.url("/good")
    seo.post("/api/v1/reports", {"url": url})  # a second report: the project stays
    probe = seo.post("/api/v1/reports", {"url": url}).data
    operations = calls_of(lambda: seo.get(f"/api/v1/reports/{probe['id']}"))
    assert operations  # the key is cached; the delete's own calls are counted below
    delete_calls = calls_of(lambda: seo.delete(f"/api/v1/reports/{probe['id']}"))
    # the last: the audit log's entry (docs/teams.md), whose loss never fails the delete
    assert delete_calls == ["GetItem", "GetItem", "TransactWriteItems", "PutItem"]
    for first in range(len(delete_calls)):
        for _ in range(2):  # the project's other report, then its last one
            report = seo.post("/api/v1/reports", {"url": url}).data
            before = project_row(account.id, report["project"])
            with Outage(first, fault):
                reply = seo.delete(f"/api/v1/reports/{report['id']}")
            stored = stored_reports.get(account.id, report["id"])
            if reply.status == 200:
                assert stored is None
                assert seo.delete(f"/api/v1/reports/{report['id']}").status == 404
            else:  # nothing was written: the report and its project are as they were
                assert reply.status in (500, 409), reply.body
                assert stored is not None
                assert project_row(account.id, report["project"]) == before
                assert seo.delete(f"/api/v1/reports/{report['id']}").status == 200
        remaining = seo.get("/api/v1/reports").data
        assert len(remaining) == 1
        row = project_row(account.id, report["project"])
        assert row is not None and row["reports"]["N"] == "1"
    last = seo.get("/api/v1/reports").data[0]
    with Outage(0, fault):
        assert seo.delete(f"/api/v1/reports/{last['id']}").status in (500, 409)
    assert seo.delete(f"/api/v1/reports/{last['id']}").status == 200
    assert project_row(account.id, last["project"]) is None  # no empty project listed
    assert seo.get("/api/v1/projects").data == []


def test_the_last_report_takes_its_project_in_its_own_transaction(seo, account, site):
    report = seo.post("/api/v1/reports", {"url": site.url("/good")}).data
    plan = FaultPlan("DeleteItem", {0: THROTTLED})  # a separate clean-up would fail
    with injected(plan):
        assert seo.delete(f"/api/v1/reports/{report['id']}").status == 200
    assert plan.requests == []
    assert project_row(account.id, report["project"]) is None
    assert seo.get("/api/v1/projects").data == []


def test_a_report_moved_to_another_host_takes_its_empty_project_along(seo, account, site):
    """A regeneration that lands on another host (a redirect) leaves no empty project, and
    a report created in the old project meanwhile keeps it."""
    site.pages["/moving"] = site.pages["/good"]
    report = seo.post("/api/v1/reports", {"url": site.url("/moving")}).data
    old = report["project"]
    other = {"url": "u", "project": old, "score": 10, "result": "good"}

    def created_meanwhile() -> None:
        """A report of the old project is counted between the move's read and its write."""
        boto3.client("dynamodb").update_item(
            TableName=config.settings().projects_table,
            Key={"account": {"S": account.id}, "project": {"S": old}},
            UpdateExpression="ADD reports :one, score_total :s",
            ExpressionAttributeValues={":one": {"N": "1"}, ":s": {"N": str(other["score"])}},
        )

    plan = FaultPlan("TransactWriteItems", {0: created_meanwhile})
    moved = stored_reports.update_with_project(
        account.id, report["id"], lambda r: {**r, "project": "moved.example", "updated_at": "z"}
    )
    assert moved is not None and moved["project"] == "moved.example"
    assert project_row(account.id, old) is None  # nothing raced: the empty project went
    report = seo.post("/api/v1/reports", {"url": site.url("/moving")}).data
    with injected(plan):
        moved = stored_reports.update_with_project(
            account.id, report["id"], lambda r: {**r, "project": "moved.example", "updated_at": "z"}
        )
    assert moved is not None and len(plan.requests) == 2  # the first write's condition failed
    row = project_row(account.id, old)
    assert row["reports"]["N"] == "1" and row["score_total"]["N"] == str(other["score"])
    assert project_row(account.id, "moved.example")["reports"]["N"] == "2"


def stored_records() -> list[dict[str, Any]]:
    """What the acknowledged writes made: websites, claims, reports, projects (not the id
    counters, which a failed create may have advanced)."""
    dynamodb = boto3.client("dynamodb")
    found = []
    for table in ("websites_table", "reports_table", "projects_table"):
        for item in dynamodb.scan(TableName=getattr(config.settings(), table))["Items"]:
            if "last_id" not in item:
                found.append(item)
    return sorted(found, key=repr)


WRITES = {
    "create website": lambda a, s, w, r: a.post("/api/v1/websites", {"domain": f"n{w}.example"}),
    "update website": lambda a, s, w, r: a.put(f"/api/v1/websites/{w}", {"email": "1"}),
    "delete website": lambda a, s, w, r: a.delete(f"/api/v1/websites/{w}"),
    "create report": lambda a, s, w, r: s.post("/api/v1/reports", {"url": r["url"]}),
    "update report": lambda a, s, w, r: s.put(f"/api/v1/reports/{r['id']}", {"privacy": "1"}),
    "delete report": lambda a, s, w, r: s.delete(f"/api/v1/reports/{r['id']}"),
    "delete project": lambda a, s, w, r: s.delete(f"/api/v1/projects/{r['project']}"),
}


@pytest.mark.parametrize("write", list(WRITES))
def test_no_write_answers_a_failure_for_a_change_it_made(analytics, seo, site, few_attempts, write):
    """Each DynamoDB call of the write fails in turn (past botocore's retries): an answer of
    409 or 5xx leaves every record as it was, so the client's retry is always right."""
    act = WRITES[write]
    website = analytics.post("/api/v1/websites", {"domain": "example.com"}).data["id"]
    report = seo.post("/api/v1/reports", {"url": site.url("/good")}).data
    seo.get("/api/v1/account")  # the key is cached from here on
    with Outage(10**6, THROTTLED) as clean:
        reply = act(analytics, seo, website, report)
    assert reply.status in (200, 201), reply.body
    assert clean.operations, write
    refused = 0
    for first in range(len(clean.operations)):
        website = analytics.post("/api/v1/websites", {"domain": f"w{first}.example"}).data["id"]
        report = seo.post("/api/v1/reports", {"url": site.url("/good")}).data
        before = stored_records()
        with Outage(first, INTERNAL):
            reply = act(analytics, seo, website, report)
        if reply.status >= 409:
            refused += 1
            assert reply.status in (409, 500), reply.body
            assert stored_records() == before, (write, first)
    assert refused, write  # the faults were felt
