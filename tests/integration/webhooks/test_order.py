"""One endpoint's deliveries go out one at a time, in the order they were made, whatever
the number of workers and however often the queue repeats a message; a delivery that is
retrying holds back the later ones. On moto and on DynamoDB Local, with worker threads
taking messages as SQS hands them out (each one twice: SQS delivers at least once)."""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from typing import Any

import pytest

from sitelens.data import webhooks as stored
from sitelens.webhooks import deliveries, outbox
from tests.integration.webhooks.receiver import Receiver

ACCOUNT = "7"
WHEN = "2026-11-26T09:00:00.000000Z"
WORKERS = 4


class Queue:
    """The webhook queue as the workers see it: a message shows when its delay is over."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.due: list[tuple[float, int, dict[str, Any]]] = []
        self.order = itertools.count()

    def enqueue(self, message: dict[str, Any], delay_seconds: int = 0) -> None:
        with self.lock:
            for _ in range(2):  # SQS delivers at least once: here, each message twice
                entry = (time.time() + delay_seconds, next(self.order), dict(message))
                heapq.heappush(self.due, entry)

    def take(self) -> dict[str, Any] | None:
        with self.lock:
            if self.due and self.due[0][0] <= time.time():
                return heapq.heappop(self.due)[2]
        return None


def run_workers(queue: Queue, done: threading.Event) -> None:
    def work() -> None:
        while not done.is_set():
            message = queue.take()
            if message is None:
                time.sleep(0.005)
            else:
                deliveries.attempt(message)

    threads = [threading.Thread(target=work) for _ in range(WORKERS)]
    for thread in threads:
        thread.start()
    try:
        done.wait(60)
    finally:
        done.set()
        for thread in threads:
            thread.join(10)


@pytest.fixture
def endpoint(storage_backend, private_urls, monkeypatch) -> Receiver:
    receiver = Receiver(stall_seconds=0.03)  # long enough for two attempts to meet
    fields = {
        "id": "1",
        "url": receiver.url(),
        "events": "website.created",
        "enabled": True,
        "secret": "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "created_at": WHEN,
        "updated_at": WHEN,
    }
    assert stored.add_endpoint(ACCOUNT, fields, 20)
    monkeypatch.setenv(deliveries.RETRY_SCALE_VARIABLE, "0.01")  # the first retry after 0.05 s
    monkeypatch.setattr(deliveries, "BUSY_SECONDS", 0)
    yield receiver
    receiver.close()


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_deliveries_to_one_endpoint_never_overlap_and_arrive_in_order_across_retries(
    endpoint, monkeypatch
):
    queue = Queue()
    monkeypatch.setattr(stored, "enqueue", queue.enqueue)
    endpoint.statuses = [500, 200, 200, 503]  # the 1st fails once, the 3rd too
    made = [
        outbox.queue(ACCOUNT, "1", "website.created", outbox.body_of("website.created", {"n": n}))[
            "id"
        ]
        for n in range(6)
    ]
    assert made == sorted(made)  # made in this order, and their ids sort so
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            states = [stored.get_delivery(ACCOUNT, "1", d)["state"] for d in made]
            if all(state == "succeeded" for state in states):
                done.set()
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    run_workers(queue, done)
    watcher.join()
    arrived = [got.headers["webhook-id"] for got in endpoint.received]
    first, second, third, *rest = made
    assert arrived == [first, first, second, third, third, *rest]
    assert endpoint.most_at_once == 1
    assert stored.first_open(ACCOUNT, "1") is None  # the line is empty


def test_a_place_left_by_an_expired_delivery_does_not_hold_the_line(endpoint, monkeypatch):
    kept: list[dict[str, Any]] = []
    monkeypatch.setattr(stored, "enqueue", lambda message, delay_seconds=0: kept.append(message))
    gone = outbox.queue(ACCOUNT, "1", "website.created", "{}")["id"]
    stored.client("dynamodb").delete_item(  # the table's TTL removed it, not its place
        TableName=stored.settings().webhooks_table,
        Key={"pk": {"S": f"DELIVERY#{ACCOUNT}#1"}, "sk": {"S": gone}},
    )
    body = outbox.body_of("website.created", {"n": 1})
    later = outbox.queue(ACCOUNT, "1", "website.created", body)["id"]
    kept.clear()
    deliveries.attempt({"account": ACCOUNT, "endpoint": "1", "delivery": later, "due": 0})
    assert [got.headers["webhook-id"] for got in endpoint.received] == [later]
    assert stored.first_open(ACCOUNT, "1") is None


def test_a_later_delivery_waits_behind_one_that_is_retrying(endpoint, monkeypatch):
    kept: list[dict[str, Any]] = []
    monkeypatch.setattr(stored, "enqueue", lambda message, delay_seconds=0: kept.append(message))
    endpoint.statuses = [500]
    first = outbox.queue(ACCOUNT, "1", "website.created", "{}")["id"]
    second = outbox.queue(ACCOUNT, "1", "website.created", "{}")["id"]
    first_message, second_message = kept
    kept.clear()
    deliveries.attempt(first_message)  # fails: retrying
    [retry] = kept
    kept.clear()
    deliveries.attempt(second_message)  # not sent: the first is still in line
    assert [got.headers["webhook-id"] for got in endpoint.received] == [first]
    [waiting] = kept
    assert waiting["delivery"] == second and waiting["due"] >= time.time() + 800
    kept.clear()
    time.sleep(max(0.0, retry["due"] - time.time()) + 0.01)
    deliveries.attempt(retry)  # succeeds, and hands on to the second at once
    [handed_on] = kept
    assert handed_on == {"account": ACCOUNT, "endpoint": "1", "delivery": second, "due": 0}
    deliveries.attempt(handed_on)
    assert [got.headers["webhook-id"] for got in endpoint.received] == [first, first, second]
