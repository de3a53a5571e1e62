"""The aggregator: batches summed in memory and written a chunk of counters per
transaction; every message counted exactly once however often it is delivered (after a
partial failure, a timeout or a crash); at most MAX_VALUES values per website, stat and
day, the rest under "(other)"."""

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

from sitelens.analytics import counting
from sitelens.analytics.counting import OTHER, sum_counts
from sitelens.analytics.hit import SERIES_NAMES, Hit
from sitelens.core import config
from sitelens.data import batches, ledger
from sitelens.data import stats as stored_stats
from sitelens.data import websites as stored_websites
from tests.fixtures.analytics import CHROME, failures, hit_record, receive, redelivered, run

DAY = datetime(2026, 11, 21, 9, 30, tzinfo=UTC)
StatKey = tuple[int, str, str, str]


class Crash(BaseException):
    """The invocation killed part-way: a timeout or running out of memory leaves no
    response, so SQS delivers every message of the batch again."""


class RecordingClient:
    """The stats store's DynamoDB client: counts requests, records the counters of every
    transaction that landed, fails chosen transactions, and kills the invocation."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.lock = threading.Lock()
        self.moto = threading.Lock()  # moto cannot run two transactions at once
        self.calls: Counter[str] = Counter()
        self.added: list[tuple[str, str]] = []
        self.fail_counters: set[tuple[str, str]] = set()  # their transaction fails, once
        self.fail_calls: Counter[str] = Counter()  # operation: how many calls fail
        self.conflicts = 0  # transactions cancelled by a conflict before one goes through
        self.death: tuple[str, int, bool] | None = None
        self.dead = False

    def kill_after(self, operation: str, calls: int, landing: bool = False) -> None:
        """Kill the invocation at the call after the next `calls` of `operation` (after it
        lands, when `landing`, so only its answer is lost); nothing runs after that."""
        self.death = (operation, self.calls[operation] + calls, landing)

    def revive(self) -> None:
        self.death, self.dead = None, False

    def _call(self, operation: str, request: dict[str, Any]) -> tuple[Any, bool]:
        """The real call's answer, and whether the invocation dies once it has landed."""
        with self.lock:
            if self.dead:
                raise Crash(operation)
            self.calls[operation] += 1
            dying, landing = False, False
            if self.death and self.death[0] == operation:
                dying = self.calls[operation] > self.death[1]
                landing = self.death[2]
            self.dead = dying
            failing = self.fail_calls[operation] > 0
            if failing:
                self.fail_calls[operation] -= 1
        if dying and not landing:
            raise Crash(operation)
        if failing:
            error = {"Code": "InternalServerError", "Message": "try again"}
            raise ClientError({"Error": error}, operation)
        with self.moto:
            return getattr(self.real, operation)(**request), dying

    def transact_write_items(self, **request: Any) -> Any:
        actions = request["TransactItems"]
        counters = [
            (update["Key"]["series"]["S"], update["Key"]["slot"]["S"])
            for action in actions
            if (update := action.get("Update"))
        ]
        with self.lock:
            failing = self.fail_counters & set(counters)
            self.fail_counters -= failing
            conflict = self.conflicts > 0 and not self.dead
            self.conflicts -= conflict
        if failing:
            error = {"Code": "ValidationException", "Message": "failed on purpose"}
            raise ClientError({"Error": error}, "TransactWriteItems")
        if conflict:
            reasons = [{"Code": "None"}] * (len(actions) - 1) + [{"Code": "TransactionConflict"}]
            error = {"Code": "TransactionCanceledException", "Message": "conflict"}
            raise ClientError(
                {"Error": error, "CancellationReasons": reasons}, "TransactWriteItems"
            )
        answer, dying = self._call("transact_write_items", request)
        with self.lock:
            self.added.extend(counters)
        if dying:
            raise Crash("transact_write_items")
        return answer

    def __getattr__(self, name: str) -> Any:
        if name not in ("update_item", "batch_write_item", "batch_get_item", "query"):
            return getattr(self.real, name)

        def call(**request: Any) -> Any:
            answer, dying = self._call(name, request)
            if dying:
                raise Crash(name)
            return answer

        return call


def record_calls(monkeypatch: pytest.MonkeyPatch, recording: RecordingClient) -> None:
    """Every DynamoDB call of the counters (`data.stats`), of the delivery ledger
    (`data.ledger`) and of their batches (`data.batches`) goes to `recording`; their
    backoffs do not sleep."""
    for module in (stored_stats, ledger, batches):
        monkeypatch.setattr(module, "client", lambda service: recording)
    monkeypatch.setattr(stored_stats.transactions.time, "sleep", lambda seconds: None)


@pytest.fixture
def dynamodb(aws_env, monkeypatch) -> RecordingClient:
    recording = RecordingClient(boto3.client("dynamodb"))
    record_calls(monkeypatch, recording)
    # SQS delivers a message again only after its visibility timeout (480 s), when the
    # batch that had it has ended: here a redelivery follows at once, so no earlier batch
    # is taken for one still running (tests of that window set it back).
    monkeypatch.setattr(counting, "RUNNING_SECONDS", 0)
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


def stored_counts(*website_ids: int) -> dict[StatKey, int]:
    """Every counter of the websites, keyed like sum_counts: (website, name, value, day)."""
    found = {}
    client = boto3.client("dynamodb")
    for website_id in website_ids:
        for name in SERIES_NAMES:
            query: dict[str, Any] = {
                "TableName": config.settings().stats_table,
                "KeyConditionExpression": "series = :s",
                "ExpressionAttributeValues": {":s": {"S": f"{website_id}#{name}"}},
            }
            while True:
                answer = client.query(**query)
                for item in answer["Items"]:
                    slot = item["slot"]["S"]
                    if slot.startswith("values#"):
                        continue
                    period = slot.split("#", 1)[0]  # a day, or a month roll-up's month
                    value = item["value"]["S"] if "value" in item else slot[len(period) + 1 :]
                    found[(website_id, name, value, period)] = int(item["count"]["N"])
                if "LastEvaluatedKey" not in answer:
                    break
                query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
    return found


def counter_key(key: StatKey) -> tuple[str, str]:
    website_id, name, value, day = key
    return (f"{website_id}#{name}", stored_stats.slot(day, value))


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


def crash(batch: list[dict[str, Any]]) -> None:
    with pytest.raises(Crash):
        run("HitsQueue", batch)


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
    assert sorted(dynamodb.added) == sorted(map(counter_key, expected))  # each once
    assert dynamodb.calls["transact_write_items"] == 1


def test_a_realistic_batch_writes_per_counter_in_few_requests(dynamodb, website, account):
    hits = realistic_batch(website["id"])
    answer = run("HitsQueue", records(hits, account.id))
    assert answer == {"batchItemFailures": []}
    expected = sum_counts(hits)
    assert stored_counts(website["id"]) == expected
    assert sorted(dynamodb.added) == sorted(map(counter_key, expected))
    # 169 day counters (the month roll-ups are the daily job's), where one write per
    # counted stat of each hit would be 7,298
    assert len(expected) == 169
    assert dynamodb.calls["transact_write_items"] == 3  # 99 counters each at most
    assert dynamodb.calls["batch_write_item"] == 1  # what the batch counts, before counting
    assert dynamodb.calls["query"] == 1  # the records of its one bucket of hit time
    assert dynamodb.calls["batch_get_item"] == 1  # the registries of distinct values
    # values new to them, one per capped stat of the day
    assert dynamodb.calls["update_item"] == 12
    assert sum(dynamodb.calls.values()) <= len(hits) / 30  # a site's first batch of the day


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
    assert max(len(slot.encode()) for _, slot in dynamodb.added) < 1024


def test_short_values_are_kept_in_the_sort_key_only(dynamodb, website, account):
    run("HitsQueue", records([pageview(website["id"], "/pricing")], account.id))
    item = boto3.client("dynamodb").get_item(
        TableName=config.settings().stats_table,
        Key={"series": {"S": f"{website['id']}#page"}, "slot": {"S": "2026-11-21#/pricing"}},
    )["Item"]
    assert set(item) == {"series", "slot", "count"}


def test_chunks_never_hold_more_than_a_transaction():
    keys = [(1, "page", f"/p{n}", "2026-11-21") for n in range(5000)]
    chunks = counting._chunk_count(keys, "2026-11")
    sizes = Counter(counting._chunk(key, chunks) for key in keys)
    assert max(sizes.values()) <= stored_stats.CHUNK_COUNTERS
    assert chunks <= 5000 / 70  # about 80% full
    assert counting._chunk_count(keys, "2026-11") == chunks  # the same keys, the same chunks


# -- exactly once -------------------------------------------------------------------------


def test_a_failed_chunk_fails_exactly_its_messages_and_a_retry_is_exact(dynamodb, website, account):
    wid = website["id"]
    hits = realistic_batch(wid, size=400)
    batch = records(hits, account.id)
    expected = sum_counts(hits)
    failing = (wid, "page", "/pricing", "2026-11-21")
    dynamodb.fail_counters = {counter_key(failing)}

    answer = run("HitsQueue", batch)

    chunks = counting._chunk_count(list(expected), "2026-11")
    in_failed_chunk = {
        key for key in expected if counting._chunk(key, chunks) == counting._chunk(failing, chunks)
    }
    assert 1 < len(in_failed_chunk) < len(expected)
    # The messages with a counter in the failed chunk, and no others.
    assert failures(answer) == {
        record["messageId"]
        for record, hit in zip(batch, hits, strict=True)
        if in_failed_chunk & set(sum_counts([hit]))
    }
    assert stored_counts(wid) == {k: n for k, n in expected.items() if k not in in_failed_chunk}

    dynamodb.added.clear()
    failed = [record for record in batch if record["messageId"] in failures(answer)]
    assert run("HitsQueue", redelivered(failed)) == {"batchItemFailures": []}
    assert set(dynamodb.added) <= set(map(counter_key, in_failed_chunk))  # only what failed
    assert stored_counts(wid) == expected  # nothing lost, nothing doubled


@pytest.mark.parametrize(("landed", "landing"), [(0, False), (1, False), (1, True), (2, False)])
def test_a_crash_part_way_then_the_redelivery_is_exact(dynamodb, website, account, landed, landing):
    """Killed after `landed` of 3 transactions (with the next one landing too, but its
    answer lost, when `landing`): no response, so SQS delivers every message again."""
    wid = website["id"]
    hits = realistic_batch(wid)
    batch = records(hits, account.id)
    expected = sum_counts(hits)
    dynamodb.kill_after("transact_write_items", landed, landing=landing)

    crash(batch)

    partial = stored_counts(wid)
    assert len(set(dynamodb.added)) == len(partial) < len(expected)
    assert all(partial[key] == expected[key] for key in partial)  # whole chunks landed
    dynamodb.revive()
    dynamodb.added.clear()
    assert run("HitsQueue", redelivered(batch)) == {"batchItemFailures": []}
    assert not set(dynamodb.added) & set(map(counter_key, partial))  # not added again
    assert stored_counts(wid) == expected


def test_a_batch_killed_after_its_last_write_adds_nothing_again(dynamodb, website, account):
    wid = website["id"]
    hits = realistic_batch(wid, size=300)
    batch = records(hits, account.id)
    chunks = counting._chunk_count(list(sum_counts(hits)), "2026-11")
    dynamodb.kill_after("transact_write_items", chunks - 1, landing=True)
    crash(batch)
    assert stored_counts(wid) == sum_counts(hits)

    dynamodb.revive()
    before = Counter(dynamodb.calls)
    assert run("HitsQueue", redelivered(batch)) == {"batchItemFailures": []}
    assert dynamodb.calls["transact_write_items"] == before["transact_write_items"]
    assert stored_counts(wid) == sum_counts(hits)


def test_a_crashed_batch_comes_back_split_and_mixed_with_fresh_hits(dynamodb, website, account):
    wid = website["id"]
    hits = realistic_batch(wid, size=600)
    batch = records(hits, account.id)
    dynamodb.kill_after("transact_write_items", 2)
    crash(batch)
    dynamodb.revive()

    fresh = realistic_batch(wid, size=300, seed=8)
    fresh_records = records(fresh, account.id, first=1000)
    again = redelivered(batch)
    assert run("HitsQueue", again[:250] + fresh_records[:100]) == {"batchItemFailures": []}
    assert run("HitsQueue", fresh_records[100:] + again[250:]) == {"batchItemFailures": []}
    assert stored_counts(wid) == Counter(sum_counts(hits)) + Counter(sum_counts(fresh))


def test_a_second_crash_during_the_redelivery(dynamodb, website, account):
    wid = website["id"]
    hits = realistic_batch(wid, size=800)
    batch = records(hits, account.id)
    dynamodb.kill_after("transact_write_items", 1)
    crash(batch)
    dynamodb.revive()

    fresh = realistic_batch(wid, size=200, seed=9)
    second = redelivered(batch) + records(fresh, account.id, first=5000)
    dynamodb.kill_after("transact_write_items", 1, landing=True)
    crash(second)
    dynamodb.revive()

    assert run("HitsQueue", redelivered(second)) == {"batchItemFailures": []}
    assert stored_counts(wid) == Counter(sum_counts(hits)) + Counter(sum_counts(fresh))


def test_a_partial_failure_then_a_crash_then_a_retry(dynamodb, website, account):
    wid = website["id"]
    hits = realistic_batch(wid, size=500)
    batch = records(hits, account.id)
    dynamodb.fail_counters = {counter_key((wid, "browser", "Chrome", "2026-11-21"))}
    failed_ids = failures(run("HitsQueue", batch))
    assert failed_ids
    failed = redelivered([record for record in batch if record["messageId"] in failed_ids])

    dynamodb.kill_after("transact_write_items", 0)
    crash(failed)
    dynamodb.revive()
    assert run("HitsQueue", redelivered(failed)) == {"batchItemFailures": []}
    assert stored_counts(wid) == sum_counts(hits)


def test_a_crash_before_any_counter_counts_everything_on_redelivery(dynamodb, website, account):
    wid = website["id"]
    hits = realistic_batch(wid, size=200)
    batch = records(hits, account.id)
    dynamodb.kill_after("batch_write_item", 0, landing=True)  # deliveries recorded, then dead
    crash(batch)
    assert stored_counts(wid) == {}
    dynamodb.revive()
    assert run("HitsQueue", redelivered(batch)) == {"batchItemFailures": []}
    assert stored_counts(wid) == sum_counts(hits)


def test_deliveries_not_recorded_mean_nothing_is_counted(dynamodb, website, account):
    wid = website["id"]
    hits = [pageview(wid, "/a"), pageview(wid, "/b", visit=True, browser="Chrome")]
    batch = records(hits, account.id)
    dynamodb.fail_calls["batch_write_item"] = 1
    assert failures(run("HitsQueue", batch)) == {"hit-0", "hit-1"}
    assert stored_counts(wid) == {}
    assert run("HitsQueue", redelivered(batch)) == {"batchItemFailures": []}
    assert stored_counts(wid) == sum_counts(hits)


def test_a_message_can_fail_more_than_once(dynamodb, website, account):
    wid = website["id"]
    hits = [pageview(wid, "/a", visit=True, browser="Chrome", language="de")]
    batch = records(hits, account.id)
    dynamodb.fail_counters = {counter_key((wid, "browser", "Chrome", "2026-11-21"))}
    assert failures(run("HitsQueue", batch)) == {"hit-0"}
    dynamodb.fail_counters = {counter_key((wid, "language", "de", "2026-11-21"))}
    assert failures(run("HitsQueue", redelivered(batch))) == {"hit-0"}
    assert failures(run("HitsQueue", redelivered(redelivered(batch)))) == set()
    assert stored_counts(wid) == sum_counts(hits)


def test_conflicting_transactions_run_again(dynamodb, website, account):
    """Concurrent batches add to the same counters; a conflict cancels one transaction."""
    hits = realistic_batch(website["id"], size=300)
    dynamodb.conflicts = 3
    assert run("HitsQueue", records(hits, account.id)) == {"batchItemFailures": []}
    assert stored_counts(website["id"]) == sum_counts(hits)
    assert dynamodb.conflicts == 0


def test_a_transaction_that_keeps_conflicting_fails_its_messages(dynamodb, website, account):
    hits = [pageview(website["id"], "/a"), pageview(website["id"], "/b")]
    batch = records(hits, account.id)
    dynamodb.conflicts = 5
    assert failures(run("HitsQueue", batch)) == {"hit-0", "hit-1"}
    assert stored_counts(website["id"]) == {}
    assert run("HitsQueue", redelivered(batch)) == {"batchItemFailures": []}
    assert stored_counts(website["id"]) == sum_counts(hits)


def test_unreadable_registries_postpone_the_hits(dynamodb, website, account):
    hits = [pageview(website["id"], "/a"), pageview(website["id"], "/b")]
    batch = records(hits, account.id)
    dynamodb.fail_calls["batch_get_item"] = 1
    assert failures(run("HitsQueue", batch)) == {"hit-0", "hit-1"}
    assert stored_counts(website["id"]) == {}
    assert run("HitsQueue", redelivered(batch)) == {"batchItemFailures": []}
    assert stored_counts(website["id"]) == sum_counts(hits)


def test_a_chunk_committed_twice_counts_once(dynamodb, website, account):
    """An SDK retry of a transaction that landed although its answer was lost."""
    counts = [(website["id"], "page", "2026-11-21", "/a", 3)]
    assert stored_stats.add_chunk("batch-1", 0, counts, 2_000_000_000) is True
    assert stored_stats.add_chunk("batch-1", 0, counts, 2_000_000_000) is False
    assert stored_stats.add_chunk("batch-2", 0, counts, 2_000_000_000) is True
    assert stored_counts(website["id"])[(website["id"], "page", "/a", "2026-11-21")] == 6
    assert ledger.committed("batch-1") == {0}


def test_unreadable_delivery_records_postpone_every_hit(dynamodb, website, account, monkeypatch):
    # Any hit may be a duplicate or a redrive (a new message id, a receive count of 1), so
    # no hit is counted before the records of its bucket are read.
    wid = website["id"]
    redelivery = redelivered(records([pageview(wid, "/old")], account.id))
    fresh = records([pageview(wid, "/new")], account.id, first=5)

    def unavailable(bucket: int) -> Any:
        raise ClientError({"Error": {"Code": "InternalServerError"}}, "Query")

    with monkeypatch.context() as patched:
        patched.setattr(ledger, "deliveries", unavailable)
        assert failures(run("HitsQueue", redelivery + fresh)) == {"hit-0", "hit-5"}
    assert stored_counts(wid) == {}
    assert run("HitsQueue", redelivered(redelivery + fresh)) == {"batchItemFailures": []}
    assert {value for (_, name, value, _) in stored_counts(wid) if name == "page"} == {
        "/old",
        "/new",
    }


def test_every_message_failing_is_reported_not_raised(dynamodb, website, account):
    wid = website["id"]
    hits = [pageview(wid), pageview(wid)]
    dynamodb.fail_counters = {counter_key((wid, "pageviews", "2026-11-21", "2026-11-21"))}
    answer = run("HitsQueue", records(hits, account.id))
    assert failures(answer) == {"hit-0", "hit-1"}


def test_deliveries_are_recorded_per_bucket_of_hit_time(dynamodb, website, account):
    wid = website["id"]
    start = datetime(2026, 11, 21, 9, 30, tzinfo=UTC)  # a bucket's first second
    hits = [
        pageview(wid, f"/p{n}", at=start + timedelta(seconds=n // 2), id=f"id-{n}")
        for n in range(60)
    ]  # thirty seconds: three buckets of ten
    assert run("HitsQueue", records(hits, account.id)) == {"batchItemFailures": []}
    assert dynamodb.calls["batch_write_item"] == 1
    first = int(start.timestamp()) // counting.BUCKET_SECONDS
    recorded = [ledger.deliveries(first + bucket) for bucket in range(4)]
    assert [len(found) for found in recorded] == [1, 1, 1, 0]
    assert sum(len(found[0].hits) for found in recorded[:3]) == 60
    assert recorded[0][0].hits == {stored_stats.digest(f"id-{n}") for n in range(20)}
    assert recorded[0][0].skipped == frozenset()


# -- distinct values ------------------------------------------------------------------------


@pytest.fixture
def small_cap(monkeypatch) -> None:
    monkeypatch.setattr(counting, "MAX_VALUES", 3)


def page_counts(website_id: int) -> dict[tuple[str, str], int]:
    return {
        (value, day): n
        for (_, name, value, day), n in stored_counts(website_id).items()
        if name == "page"
    }


def test_values_past_the_cap_count_under_other(dynamodb, website, account, small_cap):
    wid = website["id"]
    hits = [pageview(wid, page) for page in ["/a"] * 2 + ["/b"] * 5 + ["/c", "/d"] + ["/e"] * 3]
    assert run("HitsQueue", records(hits, account.id)) == {"batchItemFailures": []}
    # The most hit values are admitted first.
    assert page_counts(wid) == {
        ("/b", "2026-11-21"): 5,
        ("/e", "2026-11-21"): 3,
        ("/a", "2026-11-21"): 2,
        (OTHER, "2026-11-21"): 2,
    }
    # A later batch adds to admitted values, and to (other) for new ones.
    more = [pageview(wid, "/a"), pageview(wid, "/f"), pageview(wid, "/c")]
    assert run("HitsQueue", records(more, account.id, first=100)) == {"batchItemFailures": []}
    assert page_counts(wid)[("/a", "2026-11-21")] == 3
    assert page_counts(wid)[(OTHER, "2026-11-21")] == 4
    assert sum(page_counts(wid).values()) == len(hits) + len(more)
    registry = stored_stats.registries([(wid, "page", "2026-11-21")])[(wid, "page", "2026-11-21")]
    assert registry.digests == {stored_stats.digest(page) for page in ("/a", "/b", "/e")}


def test_each_day_and_stat_has_its_own_cap(dynamodb, website, account, small_cap):
    wid = website["id"]
    next_day = DAY + timedelta(days=1)
    hits = [pageview(wid, f"/p{n}", visit=True) for n in range(5)]
    hits += [pageview(wid, f"/q{n}", at=next_day) for n in range(3)]
    run("HitsQueue", records(hits, account.id))
    stored = stored_counts(wid)
    assert len([k for k in stored if k[1] == "page" and k[3] == "2026-11-21"]) == 4
    assert len([k for k in stored if k[1] == "landing_page"]) == 4
    assert {k[2] for k in stored if k[1] == "page" and k[3] == "2026-11-22"} == {
        "/q0",
        "/q1",
        "/q2",
    }
    assert stored[(wid, "pageviews", "2026-11-21", "2026-11-21")] == 5  # never capped


def test_the_byte_limit_sends_long_values_to_other(dynamodb, website, account, monkeypatch):
    monkeypatch.setattr(counting, "MAX_VALUE_BYTES", 1000)
    wid = website["id"]
    pages = ["/" + "a" * 599, "/" + "b" * 399, "/c", "/" + "d" * 599]
    hits = [pageview(wid, page) for page in pages]
    run("HitsQueue", records(hits, account.id))
    assert set(page_counts(wid)) == {
        (pages[0], "2026-11-21"),
        (pages[1], "2026-11-21"),
        (OTHER, "2026-11-21"),
    }
    # 1,000 bytes taken: even a short value has no room left.
    run("HitsQueue", records([pageview(wid, "/c")], account.id, first=10))
    assert page_counts(wid)[(OTHER, "2026-11-21")] == 3


def test_a_real_other_value_adds_to_the_other_row(dynamodb, website, account, small_cap):
    wid = website["id"]
    hits = [pageview(wid, "/a", visit=True, campaign=OTHER)]
    run("HitsQueue", records(hits, account.id))
    assert stored_counts(wid)[(wid, "campaign", OTHER, "2026-11-21")] == 1


def test_a_value_goes_to_the_same_counter_on_every_delivery(dynamodb, website, account, small_cap):
    wid = website["id"]
    hits = [pageview(wid, f"/p{n}", visit=True, browser=f"B{n}") for n in range(8)]
    batch = records(hits, account.id)
    dynamodb.kill_after("transact_write_items", 0)
    crash(batch)  # the registries were written; no counter was
    dynamodb.revive()
    run("HitsQueue", redelivered(batch))
    stored = stored_counts(wid)
    assert {value for (_, name, value, _) in stored if name == "page"} == {
        "/p0",
        "/p1",
        "/p2",
        OTHER,
    }
    assert stored[(wid, "page", OTHER, "2026-11-21")] == 5
    assert stored[(wid, "browser", OTHER, "2026-11-21")] == 5


def test_concurrent_batches_never_pass_the_cap(dynamodb, analytics, account, small_cap):
    """Two invocations read the registries at the same time, then both register values."""
    wid = analytics.post("/api/v1/websites", {"domain": "busy.example"}).data["id"]
    real_registries = stored_stats.registries
    together = threading.Barrier(2)
    waited: set[str] = set()

    def registries_read_together(groups: Any) -> Any:
        found = real_registries(groups)
        if threading.current_thread().name not in waited:  # the first read of each
            waited.add(threading.current_thread().name)
            together.wait(timeout=10)
        return found

    first = records([pageview(wid, f"/a{n}") for n in range(3)], account.id)
    second = records([pageview(wid, f"/b{n}") for n in range(3)], account.id, first=10)
    answers: list[Any] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(stored_stats, "registries", registries_read_together)
        threads = [
            threading.Thread(
                target=lambda b=b: answers.append(run("HitsQueue", b)), name=f"invocation-{n}"
            )
            for n, b in enumerate((first, second))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert answers == [{"batchItemFailures": []}] * 2
    pages = page_counts(wid)
    assert len([value for value, _ in pages if value != OTHER]) == 3  # exactly the cap
    assert pages[(OTHER, "2026-11-21")] == 3
    assert sum(pages.values()) == 6


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
    real_read = stored_websites.records.stored  # the cache holds what is stored
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            stored_websites.records, "stored", lambda *args: gets.append(args) or real_read(*args)
        )
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
    assert all("ApproximateFirstReceiveTimestamp" in record["attributes"] for record in queued)
    assert run("HitsQueue", queued) == {"batchItemFailures": []}
    hits = [Hit.from_json(record["body"]) for record in queued]
    assert stored_counts(website["id"]) == sum_counts(hits)
    assert json.loads(queued[0]["body"])["browser"] == "Chrome"
