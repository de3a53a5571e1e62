"""CostProfile=lean: HitsDrainFunction drains HitsQueue on a schedule instead of Lambda's
event source. What a user sees is the same as with the event source: every accepted hit
counted once, a batch that failed left in the queue and counted when it comes back, and
the queue empty after a run."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest

from sitelens.analytics import counting, draining
from sitelens.core import clock
from sitelens.data import queues, warehouse
from sitelens.local import gateway, template

CHROME = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)
DRAIN = gateway.ROOT / "functions/analytics/drain/app.py"


class Run(gateway.LambdaContext):
    """A scheduled run's context: `budget_ms` of it left, less each time it is asked."""

    def __init__(self, budget_ms: int, step_ms: int = 0) -> None:
        super().__init__("HitsDrainFunction")
        self.left = budget_ms
        self.step = step_ms

    def get_remaining_time_in_millis(self) -> int:
        self.left -= self.step
        return self.left


def drain(run: Run | None = None) -> dict[str, int]:
    answer: dict[str, int] = gateway.load_module(DRAIN).handler({}, run or Run(30_000))
    return answer


def send(analytics: Any, pages: list[str]) -> dict[str, Any]:
    site: dict[str, Any] = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    for number, page in enumerate(pages):
        reply = analytics.request(
            "POST",
            "/api/event",
            form={"page": f"https://shop.example{page}"},
            key=None,
            headers={"User-Agent": CHROME},
            source_ip=f"198.51.100.{number + 1}",
        )
        assert reply.status == 202, reply.body
    return site


def pageviews(analytics: Any, site: dict[str, Any]) -> int:
    days = analytics.get(f"/api/v1/stats/{site['id']}", query={"name": "pageviews"}).data
    return sum(day["count"] for day in days)


def waiting() -> int:
    attributes = boto3.client("sqs").get_queue_attributes(
        QueueUrl=os.environ["SITELENS_HITS_QUEUE_URL"],
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return sum(int(value) for value in attributes.values())


def test_a_run_counts_every_waiting_hit_once_and_empties_the_queue(analytics):
    site = send(analytics, ["/", "/a", "/b", "/a"])
    assert pageviews(analytics, site) == 0  # waiting for the drain
    assert drain() == {"received": 4, "deleted": 4, "retried": 0}
    assert pageviews(analytics, site) == 4
    assert waiting() == 0
    assert drain() == {"received": 0, "deleted": 0, "retried": 0}
    assert pageviews(analytics, site) == 4


def test_realtime_shows_a_visitor_before_the_drain_runs(analytics):
    """The lean profile's realtime probe: statistics wait for the drain, "visitors now"
    does not (the event function writes presences as it accepts hits)."""
    site = send(analytics, ["/now"])
    live = analytics.get(f"/api/v1/stats/{site['id']}/realtime").data
    assert (live["visitors"], live["pages"]) == (1, [{"value": "/now", "count": 1}])
    assert pageviews(analytics, site) == 0
    drain()
    assert pageviews(analytics, site) == 1


def test_a_batch_that_failed_stays_queued_and_counts_once_when_it_comes_back(
    analytics, monkeypatch
):
    site = send(analytics, ["/", "/a"])

    def refused(rows: list[dict[str, Any]]) -> None:
        raise ConnectionError("firehose unreachable")

    taken: list[str] = []
    receive = queues.receive_hits

    def watched(wanted: int) -> list[dict[str, Any]]:
        found = receive(wanted)
        taken.extend(record["receiptHandle"] for record in found)
        return found

    with monkeypatch.context() as patched:
        patched.setattr(warehouse, "put", refused)
        assert draining.drain(Run(30_000), watched) == {"received": 2, "deleted": 0, "retried": 2}
    assert pageviews(analytics, site) == 2  # counted; only the rows are to be sent again
    assert waiting() == 2  # invisible until the visibility timeout, not deleted

    # the visibility timeout passes: the messages come back, their rows go, nothing doubles
    later = counting._now() + 480
    monkeypatch.setattr(counting, "_now", lambda: later)
    url = os.environ["SITELENS_HITS_QUEUE_URL"]
    for handle in taken:
        boto3.client("sqs").change_message_visibility(
            QueueUrl=url, ReceiptHandle=handle, VisibilityTimeout=0
        )
    assert drain() == {"received": 2, "deleted": 2, "retried": 0}
    assert pageviews(analytics, site) == 2
    assert waiting() == 0


def test_no_batch_is_begun_in_the_run_s_last_minute(analytics, monkeypatch):
    site = send(analytics, ["/"])
    assert drain(Run(draining.RESERVE_MS)) == {"received": 0, "deleted": 0, "retried": 0}
    assert waiting() == 1
    assert drain(Run(draining.RESERVE_MS + 1)) == {"received": 1, "deleted": 1, "retried": 0}
    assert pageviews(analytics, site) == 1


def test_a_run_takes_batches_of_the_aggregator_s_size(analytics, monkeypatch):
    monkeypatch.setattr(draining, "BATCH_SIZE", 3)
    batches: list[int] = []
    aggregate = draining.aggregation.aggregate

    def watched(event: dict[str, Any], context: Any) -> dict[str, Any]:
        batches.append(len(event["Records"]))
        return aggregate(event, context)

    monkeypatch.setattr(draining.aggregation, "aggregate", watched)
    site = send(analytics, ["/1", "/2", "/3", "/4", "/5", "/6", "/7"])
    assert drain() == {"received": 7, "deleted": 7, "retried": 0}
    assert batches == [3, 3, 1]
    assert pageviews(analytics, site) == 7


def test_the_drain_takes_batches_as_big_as_the_event_source_s():
    resources = template.load()["Resources"]
    source = resources["AggregatorFunction"]["Properties"]["Events"]["Hits"]["Properties"]
    assert source["BatchSize"] == draining.BATCH_SIZE
    assert source["Enabled"] == {"Fn::If": ["HitsDrained", False, True]}
    assert resources["HitsDrainFunction"]["Condition"] == "HitsDrained"
    # make serve runs the defaults (standard): the event source, not the drain
    spec = template.load()
    assert template.resolved(spec, source["Enabled"]) is True
    assert not template.deployed(spec, resources["HitsDrainFunction"])
    assert template.deployed(spec, resources["AggregatorFunction"])
    # a run (its timeout) ends before the messages it took become visible again, and a batch
    # recorded within RUNNING_SECONDS may still be running under either trigger
    queue = resources["HitsQueue"]["Properties"]
    for function in ("AggregatorFunction", "HitsDrainFunction"):
        timeout = resources[function]["Properties"]["Timeout"]
        assert timeout < queue["VisibilityTimeout"]
        assert 3 * timeout <= counting.RUNNING_SECONDS
    assert timeout * 1000 > draining.RESERVE_MS


@pytest.fixture(autouse=True)
def _now(monkeypatch):
    moment = datetime.now(UTC)
    monkeypatch.setattr(clock, "now", lambda: moment)
