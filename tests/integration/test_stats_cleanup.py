"""Deleting a website removes its statistics in the background: the delete queues one
cleanup message; the cleanup function deletes every counter (and registry of distinct
values) of that website and nothing of any other, in runs of at most ITEMS_PER_RUN items
that each queue the next, and a run stopped midway is resumed where it stopped."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from sitelens.analytics import cleanup, months
from sitelens.analytics.hit import SERIES_NAMES, Hit
from sitelens.core import config
from sitelens.data import batches, cleanups
from sitelens.data import stats as stored_stats
from tests.fixtures.analytics import failures, hit_record, receive, run

DAY = datetime(2026, 11, 21, 9, 30, tzinfo=UTC)


def items_of(website_id: int) -> int:
    """How many stats items the website has, over all its series (days and months)."""
    client = boto3.client("dynamodb")
    total = 0
    for name in SERIES_NAMES:
        answer = client.query(
            TableName=config.settings().stats_table,
            KeyConditionExpression="series = :s",
            ExpressionAttributeValues={":s": {"S": f"{website_id}#{name}"}},
            Select="COUNT",
        )
        total += answer["Count"]
    return total


def busy_website(analytics: Any, account_id: str, domain: str, pages: int) -> int:
    website_id: int = analytics.post("/api/v1/websites", {"domain": domain}).data["id"]
    hits = [
        Hit(
            website_id=website_id,
            at=DAY + timedelta(days=n % 3, hours=n % 24),
            page=f"/page-{n}",
            visit=n % 2 == 0,
            browser="Chrome",
            country="DE",
            campaign=f"c{n % 4}",
        )
        for n in range(pages)
    ]
    hits.append(Hit(website_id=website_id, at=DAY, page="/", visit=False, event="signup::"))
    batch = [hit_record(hit, account_id, n) for n, hit in enumerate(hits)]
    assert run("HitsQueue", batch) == {"batchItemFailures": []}
    assert months.roll_up(account_id, website_id, DAY.strftime("%Y-%m"))  # the daily job's
    return website_id


def test_deleting_a_website_removes_its_stats_and_no_others(analytics, account):
    gone = busy_website(analytics, account.id, "gone.example", pages=60)
    kept = busy_website(analytics, account.id, "kept.example", pages=10)
    kept_items = items_of(kept)
    assert items_of(gone) > 100  # several BatchWriteItem calls of 25

    assert analytics.delete(f"/api/v1/websites/{gone}").status == 200
    assert items_of(gone) > 100  # the delete did not wait for the removal

    [message] = receive("TasksQueue")
    assert json.loads(message["body"]) == {"kind": "cleanup", "website_id": gone}
    assert run("TasksQueue", [message]) == {"batchItemFailures": []}
    assert items_of(gone) == 0
    assert items_of(kept) == kept_items


def test_registries_go_with_the_counters(analytics, account):
    website_id = busy_website(analytics, account.id, "gone.example", pages=5)
    registry = {"series": {"S": f"{website_id}#page"}, "slot": {"S": "values#2026-11-21"}}
    table = config.settings().stats_table
    assert "Item" in boto3.client("dynamodb").get_item(TableName=table, Key=registry)
    analytics.delete(f"/api/v1/websites/{website_id}")
    assert run("TasksQueue", receive("TasksQueue")) == {"batchItemFailures": []}
    assert "Item" not in boto3.client("dynamodb").get_item(TableName=table, Key=registry)


def test_a_cleanup_delivered_twice_is_harmless(analytics, account):
    website_id = busy_website(analytics, account.id, "gone.example", pages=5)
    analytics.delete(f"/api/v1/websites/{website_id}")
    [message] = receive("TasksQueue")
    assert run("TasksQueue", [message, {**message, "messageId": "again"}]) == {
        "batchItemFailures": []
    }
    assert items_of(website_id) == 0


def test_unprocessed_deletes_are_retried(analytics, account, monkeypatch):
    website_id = busy_website(analytics, account.id, "gone.example", pages=5)
    real = boto3.client("dynamodb")

    class Throttled:
        """Leaves the last item of every first BatchWriteItem unprocessed."""

        def __init__(self) -> None:
            self.calls = 0

        def batch_write_item(self, RequestItems: Any) -> Any:
            self.calls += 1
            [(table, requests)] = RequestItems.items()
            if self.calls % 2 == 1 and len(requests) > 1:
                real.batch_write_item(RequestItems={table: requests[:-1]})
                return {"UnprocessedItems": {table: requests[-1:]}}
            return real.batch_write_item(RequestItems=RequestItems)

        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

    throttled = Throttled()
    monkeypatch.setattr(stored_stats, "client", lambda service: throttled)
    monkeypatch.setattr(batches, "client", lambda service: throttled)
    monkeypatch.setattr(stored_stats.transactions.time, "sleep", lambda seconds: None)
    analytics.delete(f"/api/v1/websites/{website_id}")
    assert run("TasksQueue", receive("TasksQueue")) == {"batchItemFailures": []}
    assert items_of(website_id) == 0
    assert throttled.calls > 1


def test_failed_cleanups_are_reported_for_retry(analytics, account, monkeypatch):
    website_id = busy_website(analytics, account.id, "gone.example", pages=5)
    analytics.delete(f"/api/v1/websites/{website_id}")
    [message] = receive("TasksQueue")
    broken = {**message, "messageId": "broken", "body": '{"website": 1}'}

    def unavailable(*args: Any, **kw: Any) -> Any:
        raise ClientError({"Error": {"Code": "InternalServerError"}}, "Query")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cleanups, "remove", unavailable)
        assert failures(run("TasksQueue", [message, broken])) == {
            message["messageId"],
            "broken",
        }
    assert failures(run("TasksQueue", [message])) == set()
    assert items_of(website_id) == 0


def test_a_failing_cleanup_queue_does_not_fail_the_delete(analytics, monkeypatch):
    from sitelens.data import queues

    website_id = analytics.post("/api/v1/websites", {"domain": "gone.example"}).data["id"]

    def unavailable(website_id: int) -> None:
        raise ClientError({"Error": {"Code": "ServiceUnavailable"}}, "SendMessage")

    monkeypatch.setattr(queues, "send_cleanup", unavailable)
    reply = analytics.delete(f"/api/v1/websites/{website_id}")
    assert reply.status == 200
    assert analytics.get(f"/api/v1/websites/{website_id}").status == 404


class CountedCalls:
    """The DynamoDB client of the cleanup: what its Queries read and its batches deleted,
    and a kill (the function stopped) at a chosen BatchWriteItem."""

    def __init__(self, kill_at: int | None = None) -> None:
        self.real = boto3.client("dynamodb")
        self.read = 0
        self.deleted = 0
        self.batches = 0
        self.kill_at = kill_at

    def query(self, **params: Any) -> Any:
        answer = self.real.query(**params)
        self.read += answer["ScannedCount"]
        return answer

    def batch_write_item(self, RequestItems: Any) -> Any:
        self.batches += 1
        if self.batches == self.kill_at:
            raise RuntimeError("the function was stopped here")
        answer = self.real.batch_write_item(RequestItems=RequestItems)
        [requests] = RequestItems.values()
        self.deleted += len(requests)
        return answer

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def counted(monkeypatch: pytest.MonkeyPatch, kill_at: int | None = None) -> CountedCalls:
    calls = CountedCalls(kill_at)
    monkeypatch.setattr(cleanups, "client", lambda service: calls)
    monkeypatch.setattr(stored_stats, "client", lambda service: calls)
    monkeypatch.setattr(batches, "client", lambda service: calls)
    return calls


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_a_cleanup_killed_midway_resumes_where_it_stopped(analytics, account, monkeypatch):
    website_id = busy_website(analytics, account.id, "gone.example", pages=120)
    kept = busy_website(analytics, account.id, "kept.example", pages=5)
    kept_items = items_of(kept)
    total = items_of(website_id)
    assert total > 300
    analytics.delete(f"/api/v1/websites/{website_id}")
    [message] = receive("TasksQueue")

    killed = counted(monkeypatch, kill_at=7)
    assert failures(run("TasksQueue", [message])) == {message["messageId"]}
    # six batches went, each stored as done: the redelivery starts after them
    stored = cleanups.progress(website_id)
    assert (stored.deleted, stored.done) == (killed.deleted, False)
    assert killed.deleted >= 6
    assert items_of(website_id) == total - killed.deleted
    assert cleanups.pending() == [website_id]

    resumed = counted(monkeypatch)
    assert run("TasksQueue", [message]) == {"batchItemFailures": []}
    # nothing read or deleted twice: the resumed run read and deleted only what was left
    assert resumed.read == resumed.deleted == total - killed.deleted
    assert items_of(website_id) == 0
    assert items_of(kept) == kept_items
    assert cleanups.progress(website_id) == cleanups.Progress(deleted=total, done=True)
    assert cleanups.pending() == []
    assert receive("TasksQueue") == []  # done in that run: nothing queued

    # a late duplicate reads the finished progress and nothing else
    late = counted(monkeypatch)
    assert run("TasksQueue", [{**message, "messageId": "late"}]) == {"batchItemFailures": []}
    assert (late.read, late.batches) == (0, 0)


def test_a_large_website_is_removed_in_bounded_runs(analytics, account, monkeypatch):
    monkeypatch.setattr(cleanup, "ITEMS_PER_RUN", 60)  # in place of 10,000
    website_id = busy_website(analytics, account.id, "gone.example", pages=60)
    total = items_of(website_id)
    assert total > 3 * 60
    analytics.delete(f"/api/v1/websites/{website_id}")
    messages = receive("TasksQueue")
    runs = []
    while messages:
        calls = counted(monkeypatch)
        assert run("TasksQueue", messages) == {"batchItemFailures": []}
        runs.append((calls.read, calls.deleted))
        assert items_of(website_id) == total - sum(deleted for _, deleted in runs)
        messages = receive("TasksQueue")  # the next run, queued by this one
        assert len(messages) <= 1
    # each run read and deleted at most 60, none twice; every one went
    assert all(read == deleted <= 60 for read, deleted in runs)
    assert sum(deleted for _, deleted in runs) == total
    assert len(runs) == -(-total // 60)
    assert items_of(website_id) == 0
    assert cleanups.progress(website_id) == cleanups.Progress(deleted=total, done=True)


def test_make_serve_resumes_the_removals_its_last_run_left(analytics, account, monkeypatch):
    """make serve's queue is in memory: a server stopped during a removal lost its message,
    and the next one queues it again at start, to carry on from the stored progress."""
    from sitelens.local import server

    website_id = busy_website(analytics, account.id, "gone.example", pages=30)
    total = items_of(website_id)
    analytics.delete(f"/api/v1/websites/{website_id}")
    [message] = receive("TasksQueue")
    killed = counted(monkeypatch, kill_at=3)
    assert failures(run("TasksQueue", [message])) == {message["messageId"]}
    # the server stopped there: the message is gone with it; the next one starts
    assert server.resume_cleanups(None) == 1
    [again] = receive("TasksQueue")
    assert json.loads(again["body"]) == {"kind": "cleanup", "website_id": website_id}
    resumed = counted(monkeypatch)
    assert run("TasksQueue", [again]) == {"batchItemFailures": []}
    assert resumed.deleted == total - killed.deleted
    assert items_of(website_id) == 0
    assert server.resume_cleanups(None) == 0
