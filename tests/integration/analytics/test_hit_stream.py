"""HitStream=kinesis: hits put on a Kinesis data stream (moto's) by the real event handler,
counted once by the real aggregator from Kinesis records (redelivered, partly failed,
parked), and shown as present by the presence consumer within its flush."""

from __future__ import annotations

import base64
import json
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from sitelens.analytics import aggregation, counting
from sitelens.core import clock, config
from sitelens.data import clients, queues
from sitelens.data import websites as stored_websites
from sitelens.local import gateway
from tests.fixtures.analytics import CHROME, run
from tests.integration.analytics.test_counted_once import counted_pageviews
from tests.integration.analytics.test_realtime import presence_items, realtime

PRESENCES_APP = gateway.ROOT / "functions/analytics/presences/app.py"


@pytest.fixture
def stream(aws_env: None, moto_backend: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A stream of the test's own, where the handlers send hits (HitStream=kinesis)."""
    kinesis = boto3.client("kinesis")
    name = f"hits-{uuid.uuid4().hex[:8]}"
    # one shard: a Lambda batch holds one shard's records, whose sequence numbers differ
    kinesis.create_stream(StreamName=name, ShardCount=1)
    monkeypatch.setenv("SITELENS_HITS_STREAM", name)
    monkeypatch.delenv("SITELENS_HITS_QUEUE_URL")
    monkeypatch.setenv(
        "SITELENS_HITS_PARKING_QUEUE_URL", moto_backend.queues["HitsDeadLetterQueue"]
    )
    config.reset()
    clients.use("kinesis", kinesis)
    yield name
    kinesis.delete_stream(StreamName=name)


@pytest.fixture
def retried_after_the_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The retry comes once the batch it repeats has ended. (Lambda retries a stream's batch
    at once: within RUNNING_SECONDS of the first, its hits are skipped as held by a batch
    that may still run, and retried until then: docs/pipeline.md.)"""
    monkeypatch.setattr(counting, "RUNNING_SECONDS", 0)


def stream_records(name: str) -> list[dict[str, Any]]:
    """Every record on the stream, shard by shard, as Lambda's Kinesis event records."""
    kinesis = boto3.client("kinesis")
    records = []
    for shard in kinesis.list_shards(StreamName=name)["Shards"]:
        iterator = kinesis.get_shard_iterator(
            StreamName=name, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        for found in kinesis.get_records(ShardIterator=iterator)["Records"]:
            records.append(
                {
                    "eventSource": "aws:kinesis",
                    "eventID": f"{shard['ShardId']}:{found['SequenceNumber']}",
                    "kinesis": {
                        "data": base64.b64encode(found["Data"]).decode(),
                        "sequenceNumber": found["SequenceNumber"],
                        "partitionKey": found["PartitionKey"],
                        "approximateArrivalTimestamp": found[
                            "ApproximateArrivalTimestamp"
                        ].timestamp(),
                    },
                }
            )
    return records


def send(analytics: Any, ip: str, **form: Any) -> Any:
    return analytics.request(
        "POST", "/api/event", form=form, key=None, headers={"User-Agent": CHROME}, source_ip=ip
    )


def aggregated(records: list[dict[str, Any]]) -> list[str]:
    """The aggregator's answer to one batch: the sequence numbers it names to retry."""
    return [failure["itemIdentifier"] for failure in run("HitsQueue", records)["batchItemFailures"]]


def waiting(moto_backend: Any, queue: str) -> list[dict[str, Any]]:
    """The messages on one of the template's queues, as Lambda's SQS records."""
    sqs, found = boto3.client("sqs"), []
    while True:
        answer = sqs.receive_message(
            QueueUrl=moto_backend.queues[queue],
            MaxNumberOfMessages=10,
            MessageAttributeNames=["All"],
        )
        if not answer.get("Messages"):
            return found
        found.extend(queues.lambda_record(m, queue) for m in answer["Messages"])


@pytest.mark.usefixtures("retried_after_the_batch")
def test_hits_go_on_the_stream_and_are_counted_once(analytics, stream, moto_backend):
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    for n, page in enumerate(["/", "/pricing", "/"]):
        assert send(analytics, f"198.51.100.{n}", page=f"https://shop.example{page}").status == 202
    assert waiting(moto_backend, "HitsQueue") == []  # nothing on the queue
    records = stream_records(stream)
    assert len(records) == 3
    bodies = [base64.b64decode(r["kinesis"]["data"]).decode() for r in records]
    ids = {json.loads(body.partition("\n")[2])["id"] for body in bodies}
    assert {r["kinesis"]["partitionKey"] for r in records} == ids  # keyed by hit id
    assert aggregated(records) == []
    assert counted_pageviews(site["id"]) == Counter({"/": 2, "/pricing": 1})
    assert aggregated(records) == []  # the batch again (a retry after a crash): no change
    assert counted_pageviews(site["id"]) == Counter({"/": 2, "/pricing": 1})
    # the event function wrote no presence: the stream's consumer does
    assert presence_items(site) == []


@pytest.mark.usefixtures("retried_after_the_batch")
def test_a_partly_failed_batch_is_retried_from_its_first_failed_record(
    analytics, stream, monkeypatch, moto_backend
):
    first = analytics.post("/api/v1/websites", {"domain": "a.example"}).data
    second = analytics.post("/api/v1/websites", {"domain": "b.example"}).data
    for n in range(4):
        host = "a.example" if n % 2 == 0 else "b.example"
        assert send(analytics, f"198.51.100.{n}", page=f"https://{host}/p{n}").status == 202
    records = sorted(stream_records(stream), key=lambda r: int(r["kinesis"]["sequenceNumber"]))
    order = [
        json.loads(base64.b64decode(r["kinesis"]["data"]).decode().partition("\n")[2])
        for r in records
    ]
    exists = stored_websites.exists

    def flaky(account: str, website_id: int) -> bool:
        if website_id == second["id"]:
            raise ClientError({"Error": {"Code": "InternalServerError"}}, "GetItem")
        return exists(account, website_id)

    monkeypatch.setattr(stored_websites, "exists", flaky)
    first_failed = next(n for n, hit in enumerate(order) if hit["website_id"] == second["id"])
    assert aggregated(records) == [records[first_failed]["kinesis"]["sequenceNumber"]]
    assert waiting(moto_backend, "HitsDeadLetterQueue") == []  # young: retried, not parked
    monkeypatch.setattr(stored_websites, "exists", exists)
    # Lambda reads the shard again from that record: those after it come again too
    assert aggregated(records[first_failed:]) == []
    assert counted_pageviews(first["id"]) == Counter({"/p0": 1, "/p2": 1})
    assert counted_pageviews(second["id"]) == Counter({"/p1": 1, "/p3": 1})


def test_what_cannot_be_counted_is_parked_before_the_stream_forgets_it(
    analytics, stream, monkeypatch, moto_backend
):
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    assert send(analytics, "198.51.100.1", page="https://shop.example/").status == 202
    [record] = stream_records(stream)
    unreadable = {
        "eventSource": "aws:kinesis",
        "eventID": "shardId-000000000000:0",
        "kinesis": {"data": base64.b64encode(b"not a hit").decode(), "sequenceNumber": "0"},
    }

    def down(account: str, website_id: int) -> bool:
        raise ClientError({"Error": {"Code": "InternalServerError"}}, "GetItem")

    monkeypatch.setattr(stored_websites, "exists", down)
    # unreadable: parked at once; the hit failing for 15 minutes: parked, reported done
    arrived = record["kinesis"]["approximateArrivalTimestamp"]
    later = datetime.fromtimestamp(arrived, UTC) + timedelta(seconds=aggregation.PARK_AFTER_SECONDS)
    monkeypatch.setattr(clock, "now", lambda: later)
    assert aggregated([unreadable, record]) == []
    kept = {m["body"]: m["messageAttributes"] for m in waiting(moto_backend, "HitsDeadLetterQueue")}
    body = base64.b64decode(record["kinesis"]["data"]).decode()
    account, _, hit_json = body.partition("\n")
    assert kept["not a hit"]["reason"]["stringValue"] == "unreadable"
    assert kept[hit_json]["account"]["stringValue"] == account
    assert kept[hit_json]["reason"]["stringValue"] == "website"
    assert counted_pageviews(site["id"]) == Counter()


def test_a_put_the_stream_refuses_is_answered_as_a_queue_failure(analytics, stream):
    analytics.post("/api/v1/websites", {"domain": "shop.example"})

    class Throttled:
        def put_record(self, **_: Any) -> Any:
            error = {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"}
            raise ClientError({"Error": error}, "PutRecord")

    clients.use("kinesis", Throttled())
    reply = send(analytics, "198.51.100.1", page="https://shop.example/")
    assert (reply.status, reply.body) == (500, {"message": "Server error.", "status": 500})


def test_presences_are_written_once_per_site_and_flush(analytics, stream, monkeypatch):
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    now = datetime.now(UTC)

    def at(ago: int, ip: str, **form: Any) -> None:
        monkeypatch.setattr(clock, "now", lambda: now - timedelta(seconds=ago))
        assert send(analytics, ip, **form).status == 202

    # one visitor from Google, on /pricing now; two typing the address, on /
    at(40, "198.51.100.1", page="https://shop.example/", referrer="https://www.google.com/")
    at(5, "198.51.100.1", page="https://shop.example/pricing", referrer="https://shop.example/")
    at(30, "198.51.100.2", page="https://shop.example/")
    at(10, "198.51.100.3", page="https://shop.example/")
    monkeypatch.undo()
    records = stream_records(stream)
    presences = gateway.load_module(PRESENCES_APP).handler
    context = gateway.LambdaContext("PresenceFunction")
    assert presences({"Records": records}, context) == {"batchItemFailures": []}
    assert len(presence_items(site)) == 1  # four hits, one write
    expected = {
        "visitors": 3,
        "pages": [{"value": "/", "count": 2}, {"value": "/pricing", "count": 1}],
        "sources": [{"value": "Direct / None", "count": 2}, {"value": "Google", "count": 1}],
    }
    assert realtime(analytics, site) == expected
    assert presences({"Records": records}, context) == {"batchItemFailures": []}
    assert len(presence_items(site)) == 1  # the same flush again: the same item
    assert realtime(analytics, site) == expected
