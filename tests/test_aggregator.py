"""The aggregator: batches summed in memory, one UpdateItem per counter, partial batch
failures that neither lose nor double a hit."""

from __future__ import annotations

import json
import random
import threading
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from sitelens import config
from sitelens.analytics.aggregation import sum_counts
from sitelens.analytics.hits import STAT_NAMES, Hit
from sitelens.data import stats as stored_stats
from sitelens.data import websites as stored_websites
from tests.fixtures.analytics import CHROME, failures, hit_record, receive, redelivered, run

DAY = datetime(2026, 11, 21, 9, 30, tzinfo=UTC)


class RecordingClient:
    """The DynamoDB client, counting UpdateItem calls and failing chosen counters once."""

    def __init__(self, real: Any, fail_once: set[tuple[str, str]] | None = None) -> None:
        self.real = real
        self.updates: list[tuple[str, str]] = []
        self.fail_once = set(fail_once or ())
        self.lock = threading.Lock()

    def update_item(self, **request: Any) -> Any:
        if request["TableName"] != config.settings().stats_table:
            return self.real.update_item(**request)
        key = (request["Key"]["series"]["S"], request["Key"]["slot"]["S"])
        with self.lock:
            self.updates.append(key)
            failing = key in self.fail_once
            self.fail_once.discard(key)
        if failing:
            error = {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"}
            raise ClientError({"Error": error}, "UpdateItem")
        return self.real.update_item(**request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


@pytest.fixture
def dynamodb(aws_env, monkeypatch) -> RecordingClient:
    recording = RecordingClient(boto3.client("dynamodb"))
    monkeypatch.setattr(stored_stats, "client", lambda service: recording)
    return recording


@pytest.fixture
def website(analytics) -> dict[str, Any]:
    reply = analytics.post("/api/v1/websites", {"domain": "example.com"})
    assert reply.status == 201
    data: dict[str, Any] = reply.data
    return data


def pageview(website_id: int, page: str = "/", visit: bool = False, **more: Any) -> Hit:
    return Hit(website_id=website_id, at=more.pop("at", DAY), page=page, visit=visit, **more)


def records(hits: list[Hit], account_id: str, first: int = 0) -> list[dict[str, Any]]:
    return [hit_record(hit, account_id, first + n) for n, hit in enumerate(hits)]


def stored_counts(*website_ids: int) -> dict[tuple[int, str, str, str], int]:
    """Every counter of the websites, keyed like sum_counts: (website, name, value, day)."""
    found = {}
    client = boto3.client("dynamodb")
    for website_id in website_ids:
        for name in STAT_NAMES:
            answer = client.query(
                TableName=config.settings().stats_table,
                KeyConditionExpression="series = :s",
                ExpressionAttributeValues={":s": {"S": f"{website_id}#{name}"}},
            )
            for item in answer["Items"]:
                day = item["slot"]["S"][:10]
                found[(website_id, name, item["value"]["S"], day)] = int(item["count"]["N"])
    return found


def realistic_batch(website_id: int, size: int = 1000, seed: int = 7) -> list[Hit]:
    """A busy site's hits over a few seconds: a long tail of pages, a few sources."""
    rng = random.Random(seed)
    pages = [f"/blog/post-{n}" for n in range(60)] + ["/", "/pricing", "/docs", "/signup"]
    weights = [1] * 60 + [40, 20, 15, 10]
    hits = []
    for n in range(size):
        at = DAY + timedelta(seconds=n * 5 / size)
        if rng.random() < 0.03:
            hits.append(pageview(website_id, "/signup", at=at, event="signup:pro:plan"))
            continue
        visit = rng.random() < 0.4
        hits.append(
            pageview(
                website_id,
                rng.choices(pages, weights)[0],
                visit=visit,
                at=at,
                referrer=rng.choice(["", "google.com", "news.ycombinator.com", "t.co"])
                if visit
                else "",
                browser=rng.choice(["Chrome", "Mobile Safari", "Firefox", "Edge", "Safari"]),
                os=rng.choice(["Windows", "iOS", "Mac OS X", "Android", "Linux"]),
                device=rng.choice(["desktop", "mobile", "tablet"]),
                language=rng.choice(["en", "de", "fr", "es", "ja", "pt"]),
                resolution=rng.choice(["1920x1080", "390x844", "1440x900", "1366x768"]),
                country=rng.choice(["US", "DE", "FR", "GB", "IN", "BR", "JP", "CA"]),
                continent=rng.choice(["NA", "EU", "AS", "SA"]),
                city=rng.choice(["", "Berlin", "Paris", "London", "Tokyo", "Austin"]),
                campaign=rng.choice(["", "", "", "launch"]),
            )
        )
    return hits


# -- sums and writes ----------------------------------------------------------------------


def test_a_batch_is_summed_and_each_counter_written_once(dynamodb, website, account):
    hits = [
        pageview(website["id"], "/", visit=True, browser="Firefox"),
        pageview(website["id"], "/pricing"),
        pageview(website["id"], "/pricing"),
        pageview(website["id"], "/pricing", visit=True, browser="Chrome"),
    ]
    answer = run("HitsQueue", records(hits, account.id))
    assert answer == {"batchItemFailures": []}
    expected = sum_counts(hits)
    assert stored_counts(website["id"]) == expected
    assert expected[(website["id"], "pageviews", "2026-11-21", "2026-11-21")] == 4
    assert expected[(website["id"], "visitors", "2026-11-21", "2026-11-21")] == 2
    assert len(dynamodb.updates) == len(expected) == len(set(dynamodb.updates))


def test_a_realistic_batch_writes_per_counter_not_per_hit(dynamodb, website, account):
    hits = realistic_batch(website["id"])
    answer = run("HitsQueue", records(hits, account.id))
    assert answer == {"batchItemFailures": []}
    assert stored_counts(website["id"]) == sum_counts(hits)
    distinct = len(sum_counts(hits))
    assert len(dynamodb.updates) == distinct
    assert distinct < 200  # 169, where one write per counted stat of each hit would be 7,298


def test_counts_add_up_across_batches(dynamodb, website, account):
    first = [pageview(website["id"], "/a", visit=True, browser="Chrome")] * 3
    second = [pageview(website["id"], "/a"), pageview(website["id"], "/b")]
    run("HitsQueue", records(first, account.id))
    run("HitsQueue", records(second, account.id, first=10))
    assert stored_counts(website["id"]) == Counter(sum_counts(first)) + Counter(sum_counts(second))


def test_hours_and_days_are_separate_counters(dynamodb, website, account):
    hits = [
        pageview(website["id"], at=datetime(2026, 11, 21, 23, 59, tzinfo=UTC)),
        pageview(website["id"], at=datetime(2026, 11, 22, 0, 1, tzinfo=UTC)),
        pageview(website["id"], at=datetime(2026, 11, 22, 0, 2, tzinfo=UTC)),
    ]
    run("HitsQueue", records(hits, account.id))
    stored = stored_counts(website["id"])
    assert stored[(website["id"], "pageviews_hour", "23", "2026-11-21")] == 1
    assert stored[(website["id"], "pageviews_hour", "00", "2026-11-22")] == 2


def test_long_values_keep_apart_and_in_full(dynamodb, website, account):
    shared = "/" + "p" * 1500
    pages = [shared + "a" * 500, shared + "b" * 500, "/" + "é" * 1000]
    hits = [pageview(website["id"], page) for page in pages] + [pageview(website["id"], pages[0])]
    assert run("HitsQueue", records(hits, account.id)) == {"batchItemFailures": []}
    stored = stored_counts(website["id"])
    assert {value: n for (_, name, value, _), n in stored.items() if name == "page"} == {
        pages[0]: 2,
        pages[1]: 1,
        pages[2]: 1,
    }
    slots = {slot for _, slot in dynamodb.updates}
    assert max(len(slot.encode()) for slot in slots) < 1024


# -- partial failures ---------------------------------------------------------------------


def test_a_failed_counter_fails_exactly_its_messages_and_a_retry_is_exact(
    dynamodb, website, account
):
    wid = website["id"]
    hits = [
        pageview(wid, "/pricing", visit=True, browser="Chrome"),  # hit-0
        pageview(wid, "/"),  # hit-1
        pageview(wid, "/pricing"),  # hit-2
        pageview(wid, "/docs", visit=True, browser="Firefox"),  # hit-3
        Hit(website_id=wid, at=DAY, page="/pricing", visit=False, event="signup::"),  # hit-4
    ]
    batch = records(hits, account.id)
    dynamodb.fail_once = {(f"{wid}#page", "2026-11-21#/pricing")}

    answer = run("HitsQueue", batch)

    # Only the pageviews of /pricing added to the failed counter (the event did not).
    assert failures(answer) == {"hit-0", "hit-2"}
    expected = sum_counts(hits)
    partial = dict(expected)
    del partial[(wid, "page", "/pricing", "2026-11-21")]
    assert stored_counts(wid) == partial  # everything else landed

    failed = [record for record in batch if record["messageId"] in failures(answer)]
    dynamodb.updates.clear()
    retry = run("HitsQueue", redelivered(failed))

    assert retry == {"batchItemFailures": []}
    assert dynamodb.updates == [(f"{wid}#page", "2026-11-21#/pricing")]  # only what failed
    assert stored_counts(wid) == expected  # nothing lost, nothing doubled


def test_a_retry_mixed_with_fresh_hits_is_exact(dynamodb, website, account):
    wid = website["id"]
    first = [pageview(wid, "/a", visit=True, browser="Chrome"), pageview(wid, "/b")]
    batch = records(first, account.id)
    dynamodb.fail_once = {(f"{wid}#browser", "2026-11-21#Chrome")}
    answer = run("HitsQueue", batch)
    assert failures(answer) == {"hit-0"}

    fresh = [pageview(wid, "/a", visit=True, browser="Chrome"), pageview(wid, "/c")]
    mixed = redelivered(batch[:1]) + records(fresh, account.id, first=10)
    assert run("HitsQueue", mixed) == {"batchItemFailures": []}
    assert stored_counts(wid) == Counter(sum_counts(first)) + Counter(sum_counts(fresh))


def test_a_message_can_fail_more_than_once(dynamodb, website, account):
    wid = website["id"]
    hits = [pageview(wid, "/a", visit=True, browser="Chrome", language="de")]
    batch = records(hits, account.id)
    dynamodb.fail_once = {(f"{wid}#browser", "2026-11-21#Chrome")}
    assert failures(run("HitsQueue", batch)) == {"hit-0"}
    dynamodb.fail_once = {(f"{wid}#language", "2026-11-21#de")}
    # The second attempt only writes the browser; it never tries the language again.
    assert failures(run("HitsQueue", redelivered(batch))) == set()
    assert stored_counts(wid) == sum_counts(hits)


def test_every_message_failing_is_reported_not_raised(dynamodb, website, account):
    wid = website["id"]
    hits = [pageview(wid), pageview(wid)]
    dynamodb.fail_once = {(f"{wid}#pageviews", "2026-11-21#2026-11-21")}
    answer = run("HitsQueue", records(hits, account.id))
    assert failures(answer) == {"hit-0", "hit-1"}


def test_unreadable_ledgers_postpone_redelivered_hits(dynamodb, website, account, monkeypatch):
    wid = website["id"]
    redelivery = redelivered(records([pageview(wid, "/old")], account.id))
    fresh = records([pageview(wid, "/new")], account.id, first=5)

    def unavailable(messages: Any) -> Any:
        raise ClientError({"Error": {"Code": "InternalServerError"}}, "BatchGetItem")

    monkeypatch.setattr(stored_stats, "retry_ledgers", unavailable)
    assert failures(run("HitsQueue", redelivery + fresh)) == {"hit-0"}
    assert {value for (_, name, value, _) in stored_counts(wid) if name == "page"} == {"/new"}


def test_the_same_write_twice_counts_once(dynamodb, website, account):
    """The SDK retries a write whose answer was lost; the batch token makes it a no-op."""
    args = (website["id"], "page", "2026-11-21", "/a", 3, "batch-1")
    assert stored_stats.add(*args) is True
    assert stored_stats.add(*args) is False
    assert stored_stats.add(website["id"], "page", "2026-11-21", "/a", 2, "batch-2") is True
    assert stored_counts(website["id"])[(website["id"], "page", "/a", "2026-11-21")] == 5


# -- what is dropped ------------------------------------------------------------------------


def test_hits_of_deleted_websites_are_dropped(dynamodb, analytics, account):
    kept = analytics.post("/api/v1/websites", {"domain": "kept.example"}).data
    gone = analytics.post("/api/v1/websites", {"domain": "gone.example"}).data
    assert analytics.delete(f"/api/v1/websites/{gone['id']}").status == 200
    hits = [pageview(kept["id"], "/"), pageview(gone["id"], "/"), pageview(gone["id"], "/x")]
    assert run("HitsQueue", records(hits, account.id)) == {"batchItemFailures": []}
    assert stored_counts(kept["id"]) == sum_counts(hits[:1])
    assert stored_counts(gone["id"]) == {}


def test_websites_are_looked_up_once_per_batch_and_cached(dynamodb, analytics, account):
    one = analytics.post("/api/v1/websites", {"domain": "one.example"}).data
    two = analytics.post("/api/v1/websites", {"domain": "two.example"}).data
    gets: list[Any] = []
    real_get = stored_websites.get
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(stored_websites, "get", lambda *args: gets.append(args) or real_get(*args))
        hits = [pageview(one["id"]), pageview(two["id"]), pageview(one["id"], "/x")]
        run("HitsQueue", records(hits, account.id))
        run("HitsQueue", records(hits, account.id, first=10))
    assert len(gets) == 2


def test_an_unreadable_message_fails_alone(dynamodb, website, account):
    good = records([pageview(website["id"])], account.id)
    bad = [{**good[0], "messageId": "broken", "body": "{not json"}]
    orphan = [{**good[0], "messageId": "no-account", "messageAttributes": {}}]
    answer = run("HitsQueue", good + bad + orphan)
    assert failures(answer) == {"broken", "no-account"}
    assert stored_counts(website["id"]) == sum_counts([pageview(website["id"])])


def test_hits_from_the_event_endpoint_are_counted(dynamodb, analytics, website):
    for page in ("https://example.com/", "https://example.com/pricing"):
        reply = analytics.post(
            "/api/event",
            {"page": page, "referrer": "https://google.com/"},
            key=None,
            headers={"User-Agent": CHROME},
            source_ip="192.0.2.1",
        )
        assert reply.status == 202
    queued = receive("HitsQueue")
    assert run("HitsQueue", queued) == {"batchItemFailures": []}
    hits = [Hit.from_json(record["body"]) for record in queued]
    assert stored_counts(website["id"]) == sum_counts(hits)
    assert json.loads(queued[0]["body"])["browser"] == "Chrome"
