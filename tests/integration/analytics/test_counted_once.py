"""Every hit counted once, and exactly one warehouse row, by its id: through a kill midway,
the dead-letter queue and a redrive (new message ids), standard-queue duplicates, replays,
two batches holding the same hit at once, and a crash at any step of counting, sending
rows or compacting. On moto and on DynamoDB Local, under both CostProfiles' triggers."""

from __future__ import annotations

import itertools
import json
import os
import threading
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from sitelens.analytics import counting
from sitelens.analytics.counting import sum_counts
from sitelens.analytics.hit import Hit, new_id
from sitelens.analytics.warehouse import reingest
from sitelens.core import config, metrics
from sitelens.data import clients, warehouse
from sitelens.local.warehouse import LocalWarehouse
from tests.conftest import Client, make_account
from tests.fixtures.analytics import drained, failures, hit_record, run
from tests.integration.test_aggregator import Crash, RecordingClient, record_calls, stored_counts

START = datetime(2026, 11, 21, 9, 30, tzinfo=UTC)


@pytest.fixture
def backend(storage_backend: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """moto or DynamoDB Local, with every setting a handler needs at its cold start."""
    for name in ("HITS_QUEUE_URL", "TASK_QUEUE_URL"):
        if not os.environ.get(f"SITELENS_{name}"):
            monkeypatch.setenv(f"SITELENS_{name}", f"http://127.0.0.1:9/{name.lower()}")
    config.reset()
    return storage_backend


@pytest.fixture
def dynamodb(backend: str, monkeypatch: pytest.MonkeyPatch) -> RecordingClient:
    import boto3

    recording = RecordingClient(boto3.client("dynamodb"))
    record_calls(monkeypatch, recording)
    return recording


@pytest.fixture
def store(tmp_path: Path) -> Any:
    """A real warehouse (Parquet on disk, DuckDB) receiving the aggregator's rows."""
    local = LocalWarehouse(tmp_path / "warehouse")
    warehouse.use(warehouse.LocalEngine("duckdb", local.run, local.write, local.compact))
    yield local
    warehouse.use(None)
    local.close()


@pytest.fixture(
    autouse=True,
    params=["event source", pytest.param("drain", marks=pytest.mark.slow)],
)
def trigger(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """What brings the aggregator its batches: Lambda's SQS event source (CostProfile
    standard) or HitsDrainFunction (lean). Every guarantee here holds under both."""
    if request.param == "drain":
        monkeypatch.setitem(globals(), "run", drained)
    return str(request.param)


@pytest.fixture
def site(backend: str) -> tuple[str, int]:
    account = make_account("Acme")
    reply = Client("AnalyticsApi", account.key).post("/api/v1/websites", {"domain": "ex.com"})
    assert reply.status == 201
    return account.id, int(reply.data["id"])


def hits_of(website_id: int, count: int = 40, pages: int = 7) -> list[Hit]:
    found = []
    for n in range(count):
        at = START + timedelta(seconds=n)
        visit = n % 3 == 0
        found.append(
            Hit(
                website_id=website_id,
                at=at,
                page=f"/p{n % pages}",
                visit=visit,
                referrer="google.com" if visit else "",
                country="DE" if n % 2 else "FR",
                visitor=f"v{n % 5}",
                id=new_id(at),
            )
        )
    return found


def batch_of(hits: list[Hit], account: str, prefix: str = "m") -> list[dict[str, Any]]:
    """The hits' SQS records under fresh message ids (a first delivery, or a redrive)."""
    return [
        {**hit_record(hit, account, n), "messageId": f"{prefix}-{n}"} for n, hit in enumerate(hits)
    ]


def again(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same messages delivered again after their visibility timeout."""
    return [
        {
            **record,
            "attributes": {
                **record["attributes"],
                "ApproximateReceiveCount": str(
                    int(record["attributes"]["ApproximateReceiveCount"]) + 1
                ),
            },
        }
        for record in records
    ]


def until_done(records: list[dict[str, Any]], rounds: int = 6) -> None:
    for _ in range(rounds):
        failed = failures(run("HitsQueue", records))
        if not failed:
            return
        records = again([r for r in records if r["messageId"] in failed])
    raise AssertionError(f"still failing after {rounds} deliveries")


def warehouse_pageviews(store: LocalWarehouse, website_id: int) -> Counter[str]:
    store.compact()
    store.merge(date.max)  # the daily level too, every day taken as closed
    found = store.run(
        "SELECT page, COUNT(*), COUNT(DISTINCT hit_id) FROM events "
        f"WHERE website_id = {website_id} "
        "AND name = 'pageview' GROUP BY page"
    )
    assert all(total == distinct for _, total, distinct in found)  # one row per hit
    return Counter({page: total for page, total, _ in found})


def counted_pageviews(website_id: int) -> Counter[str]:
    return Counter(
        {value: n for (_, name, value, _), n in stored_counts(website_id).items() if name == "page"}
    )


def later_each_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The records' clock from now on: each reading a window later than the last, as each
    retry comes after the queue's visibility timeout."""
    step = counting.RUNNING_SECONDS + 1
    moments = itertools.count(counting._now() + step, step)
    monkeypatch.setattr(counting, "_now", lambda: next(moments))


@pytest.fixture
def redelivered_later(monkeypatch: pytest.MonkeyPatch) -> None:
    """SQS delivers a message again only after its visibility timeout (480 s), when the
    batch that had it has ended: no earlier batch is taken for one still running."""
    monkeypatch.setattr(counting, "RUNNING_SECONDS", 0)


@pytest.mark.usefixtures("redelivered_later")
def test_a_redrive_after_kills_midway_counts_exactly_once(dynamodb, site, store):
    account, wid = site
    hits = hits_of(wid, 150, pages=150)  # 300 page counters and more: several chunks
    batch = batch_of(hits, account)
    # Five deliveries, killed after a chunk landed twice, then before any: the message goes
    # to the dead-letter queue with part of its counters in.
    for delivery in range(5):
        dynamodb.kill_after("transact_write_items", 0, landing=delivery < 2)
        with pytest.raises(Crash):
            run("HitsQueue", batch)
        dynamodb.revive()
        batch = again(batch)
    assert 0 < len(stored_counts(wid)) < len(sum_counts(hits))
    # The redrive: the same bodies under new message ids, received for the first time.
    assert run("HitsQueue", batch_of(hits, account, "redriven")) == {"batchItemFailures": []}
    assert stored_counts(wid) == sum_counts(hits)
    assert warehouse_pageviews(store, wid) == counted_pageviews(wid)
    # Redriving it all once more (an operator's second try) changes nothing.
    assert run("HitsQueue", batch_of(hits, account, "twice")) == {"batchItemFailures": []}
    assert stored_counts(wid) == sum_counts(hits)
    assert warehouse_pageviews(store, wid) == counted_pageviews(wid)


@pytest.mark.usefixtures("redelivered_later")
def test_duplicates_and_replays_change_no_counter(dynamodb, site, store, capsys):
    account, wid = site
    hits = hits_of(wid, 12)
    assert run("HitsQueue", batch_of(hits, account)) == {"batchItemFailures": []}
    counted = stored_counts(wid)
    # A standard-queue duplicate (receive count 1), the same hit twice in one batch, and a
    # replay of every body: nothing more is counted, and each is reported done.
    duplicate = batch_of(hits[:1], account, "dup")
    twice = batch_of([hits[1], hits[1]], account, "twice")
    replay = batch_of(hits, account, "replay")
    for batch in (duplicate, twice, replay):
        assert run("HitsQueue", batch) == {"batchItemFailures": []}
    assert stored_counts(wid) == counted == sum_counts(hits)
    assert warehouse_pageviews(store, wid) == counted_pageviews(wid)
    out = capsys.readouterr().out
    assert metrics.read(out)["HitsDuplicate"] == 1 + 2 + 12  # figures of the log line
    assert '"_aws"' not in out  # nothing lost: no metric


def test_a_hit_held_by_a_batch_still_running_waits_for_it(dynamodb, site, store, monkeypatch):
    account, wid = site
    hits = hits_of(wid, 10)
    # Batch A recorded the hits and was cut off before its counters; it may still be
    # running, so a duplicate delivered now must not count them on its own.
    dynamodb.kill_after("transact_write_items", 0)
    with pytest.raises(Crash):
        run("HitsQueue", batch_of(hits, account, "a"))
    dynamodb.revive()
    duplicate = batch_of(hits, account, "b")
    assert failures(run("HitsQueue", duplicate)) == {r["messageId"] for r in duplicate}
    assert stored_counts(wid) == {}
    # After the window, A has ended either way: B's retry counts each hit once.
    later_each_time(monkeypatch)
    assert run("HitsQueue", again(duplicate)) == {"batchItemFailures": []}
    assert stored_counts(wid) == sum_counts(hits)
    assert warehouse_pageviews(store, wid) == counted_pageviews(wid)


def test_a_hit_skipped_beside_fresh_hits_is_counted_on_its_retry(
    dynamodb, site, store, monkeypatch
):
    account, wid = site
    held, fresh = hits_of(wid, 6), hits_of(wid, 6)
    # Batch A recorded `held` and was cut off before its counters: it may still be running.
    dynamodb.kill_after("transact_write_items", 0)
    with pytest.raises(Crash):
        run("HitsQueue", batch_of(held, account, "a"))
    dynamodb.revive()
    # A redelivery mixed with fresh hits: B leaves `held` to later (recorded as skipped)
    # and commits the chunks of the fresh hits, the very chunks `held` adds to.
    mixed = batch_of(held + fresh, account, "b")
    assert failures(run("HitsQueue", mixed)) == {r["messageId"] for r in mixed[: len(held)]}
    assert stored_counts(wid) == sum_counts(fresh)
    # After the window, B's committed chunks do not hold `held`: its retry adds them.
    later_each_time(monkeypatch)
    assert run("HitsQueue", again(mixed[: len(held)])) == {"batchItemFailures": []}
    assert stored_counts(wid) == sum_counts(held + fresh)
    assert warehouse_pageviews(store, wid) == counted_pageviews(wid)


def test_two_batches_with_the_same_hits_at_once_count_them_once(dynamodb, site, store, monkeypatch):
    account, wid = site
    hits = hits_of(wid, 30)
    batches = [batch_of(hits, account, name) for name in ("a", "b")]
    results: list[set[str]] = [set(), set()]
    start = threading.Barrier(2)

    def deliver(n: int) -> None:
        start.wait()
        results[n] = failures(run("HitsQueue", batches[n]))

    threads = [threading.Thread(target=deliver, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Whatever interleaving happened, each batch either counted a hit or left it for later.
    later_each_time(monkeypatch)
    for n in range(2):
        retry = [r for r in batches[n] if r["messageId"] in results[n]]
        if retry:
            until_done(again(retry))
    assert stored_counts(wid) == sum_counts(hits)
    assert warehouse_pageviews(store, wid) == counted_pageviews(wid)


STEPS = [
    ("batch_write_item", 0, False),  # recording the hits the batch takes on
    ("query", 0, False),  # reading the records of its buckets
    ("batch_get_item", 0, False),  # the registries of distinct values
    ("transact_write_items", 0, False),  # the first chunk, not landed
    ("transact_write_items", 0, True),  # the first chunk landed, its answer lost
    ("transact_write_items", 2, True),  # the last chunk landed, its answer lost
]


@pytest.mark.usefixtures("redelivered_later")
@pytest.mark.parametrize(("operation", "after", "landed"), STEPS)
def test_a_crash_at_any_step_leaves_counters_and_rows_in_agreement(
    dynamodb, site, store, operation, after, landed
):
    account, wid = site
    hits = hits_of(wid, 120, pages=120)  # three chunks
    batch = batch_of(hits, account)
    dynamodb.kill_after(operation, after, landing=landed)
    with pytest.raises(Crash):
        run("HitsQueue", batch)
    dynamodb.revive()
    until_done(again(batch))
    assert stored_counts(wid) == sum_counts(hits)
    assert warehouse_pageviews(store, wid) == counted_pageviews(wid)


@pytest.mark.usefixtures("redelivered_later")
def test_rows_refused_or_cut_off_are_sent_again_and_kept_once(dynamodb, site, store, monkeypatch):
    account, wid = site
    hits = hits_of(wid, 20)
    batch = batch_of(hits, account)
    real_write = store.write
    calls = Counter[str]()

    def flaky(rows: Any) -> int:
        calls["put"] += 1
        if calls["put"] == 1:
            raise RuntimeError("Firehose refused the records")  # the counters are in
        written = real_write(rows)
        if calls["put"] == 2:
            raise Crash("killed after the put, before SQS heard")
        return written

    warehouse.use(warehouse.LocalEngine("duckdb", store.run, flaky, store.compact))
    assert failures(run("HitsQueue", batch)) == {r["messageId"] for r in batch}
    with pytest.raises(Crash):
        run("HitsQueue", again(batch))
    assert run("HitsQueue", again(again(batch))) == {"batchItemFailures": []}
    assert stored_counts(wid) == sum_counts(hits)
    assert warehouse_pageviews(store, wid) == counted_pageviews(wid)


@pytest.mark.usefixtures("redelivered_later")
def test_a_compaction_cut_off_before_it_removes_landing_loses_and_doubles_nothing(
    dynamodb, site, store, monkeypatch
):
    account, wid = site
    hits = hits_of(wid, 20)
    until_done(batch_of(hits, account))
    landing = sorted((store.root / "landing").glob("hour=*/*.parquet"))
    assert landing

    def cut_off(self: Path, missing_ok: bool = False) -> None:
        raise Crash("killed before landing was removed")

    with monkeypatch.context() as patched:
        patched.setattr(Path, "unlink", cut_off)
        with pytest.raises(Crash):
            store.compact()
    # The parts are in place and landing is still there: queries keep one row a hit.
    assert store.run("SELECT COUNT(*) FROM event_parts WHERE name = 'pageview'") == store.run(
        "SELECT COUNT(*) FROM landing WHERE name = 'pageview'"
    )
    assert warehouse_pageviews(store, wid) == counted_pageviews(wid)
    assert not list((store.root / "landing").glob("hour=*/*.parquet"))


class PackedStream:
    """Firehose as the aggregator's client: the records of each PutRecordBatch handed to
    make serve's stand-in, which splits them into rows as the stream does, except those
    refused (each `refuse`-th record offered) and one whose conversion failed (Firehose
    writes it whole to landing-errors/, for the compaction to re-ingest)."""

    def __init__(self, store: LocalWarehouse, refuse: int) -> None:
        self.store, self.refuse = store, refuse
        self.offered = self.rows = 0
        self.records: list[bytes] = []

    def put_record_batch(self, DeliveryStreamName: str, Records: list[dict[str, bytes]]) -> Any:
        answers: list[dict[str, str]] = []
        for record in Records:
            self.offered += 1
            if self.offered % self.refuse == 0:
                answers.append({"ErrorCode": "ServiceUnavailableException"})
                continue
            self.records.append(record["Data"])
            answers.append({"RecordId": str(self.offered)})
            if len(self.records) == 2:  # the conversion of the second record accepted fails
                path = self.store.root / reingest.error_file("2026-11-21", "EventsStream-1")
                path.parent.mkdir(parents=True, exist_ok=True)
                failed = reingest.error_document(record["Data"], "Glue.AccessDenied", "", START)
                path.write_text(json.dumps(failed) + "\n")
            else:
                self.store.receive([record["Data"]])
        failed_count = sum(1 for answer in answers if "ErrorCode" in answer)
        return {"FailedPutCount": failed_count, "RequestResponses": answers}


@pytest.mark.usefixtures("redelivered_later")
def test_packed_records_land_every_row_once_through_refusals_duplicates_and_failed_conversions(
    dynamodb, site, store, monkeypatch, capsys
):
    account, wid = site
    hits = hits_of(wid, 40)
    monkeypatch.setattr(warehouse, "RECORD_BYTES", 1_500)  # a few rows a record
    monkeypatch.setattr(warehouse, "_FIREHOSE_ATTEMPTS", 1)  # a refused record fails the put
    monkeypatch.setenv("SITELENS_EVENTS_STREAM", "sitelens-events")
    config.reset()
    stream = PackedStream(store, refuse=4)
    monkeypatch.setitem(clients._clients, "firehose", stream)
    warehouse.use(None)  # deployed: rows packed for the stream
    first = batch_of(hits, account)
    duplicated = [*first, *batch_of(hits[:10], account, "dup")]  # the queue's duplicates
    capsys.readouterr()
    retried = failures(run("HitsQueue", duplicated))
    assert retried  # a quarter of the records refused: only their rows' messages come back
    assert len(retried) < len(duplicated)
    written = metrics.read(capsys.readouterr().out)
    failed, delivered = written["RowsFailed"], written["RowsDelivered"]
    assert (failed, failed + delivered) == (len({m.split("-")[1] for m in retried}), 40)
    until_done(again([r for r in duplicated if r["messageId"] in retried]))
    assert all(len(record) <= 1_500 for record in stream.records)
    assert max(record.count(b"\n") for record in stream.records) > 1  # rows packed
    done = store.compact()
    store.merge(date.max)  # the daily level too, every day taken as closed
    assert done["error_files"] == 1 and done["reingested"] > 1  # the record, row by row
    found = store.run(f"SELECT hit_id FROM events WHERE website_id = {wid}")
    assert sorted(hit for (hit,) in found) == sorted(hit.id for hit in hits)  # each once
    assert stored_counts(wid) == sum_counts(hits)
