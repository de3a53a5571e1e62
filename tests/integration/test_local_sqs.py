"""`make serve`'s in-memory SQS: what the handlers and workers rely on, through boto3 over
HTTP (botocore checks the MD5 digests) and in process."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from sitelens.local import sqs

ACCOUNT = {"account": {"DataType": "String", "StringValue": "acc-1"}}


@pytest.fixture
def local() -> Iterator[sqs.LocalSqs]:
    server = sqs.LocalSqs("127.0.0.1")
    server.start()
    yield server
    server.stop()


@pytest.fixture(params=["http", "in-process"])
def client(request, local: sqs.LocalSqs) -> Any:
    if request.param == "in-process":
        return local.client
    return boto3.client(
        "sqs",
        endpoint_url=local.endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )


def test_messages_come_back_in_order_with_their_attributes_and_are_gone_once_deleted(client):
    url = client.create_queue(QueueName="Hits")["QueueUrl"]
    ids = [
        client.send_message(QueueUrl=url, MessageBody=f"hit {n}", MessageAttributes=ACCOUNT)[
            "MessageId"
        ]
        for n in range(12)
    ]
    first = client.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, MessageAttributeNames=["All"]
    )
    received = first["Messages"]
    assert [m["MessageId"] for m in received] == ids[:10]  # at most ten at a time
    assert received[0]["Body"] == "hit 0"
    assert received[0]["MessageAttributes"] == ACCOUNT
    assert received[0]["Attributes"]["ApproximateReceiveCount"] == "1"
    client.delete_message_batch(
        QueueUrl=url,
        Entries=[
            {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(received)
        ],
    )
    rest = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [m["MessageId"] for m in rest] == ids[10:]
    assert (
        client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"][
            "ApproximateNumberOfMessagesNotVisible"
        ]
        == "2"
    )


def test_a_message_not_deleted_in_time_is_delivered_again_and_a_stale_receipt_deletes_nothing(
    client, local
):
    now = [0.0]  # the broker's clock, moved past each visibility timeout instead of slept
    local.broker.clock = lambda: now[0]
    url = client.create_queue(QueueName="Hits", Attributes={"VisibilityTimeout": "1"})["QueueUrl"]
    client.send_message(QueueUrl=url, MessageBody="hit")
    [first] = client.receive_message(QueueUrl=url)["Messages"]
    assert client.receive_message(QueueUrl=url).get("Messages", []) == []  # in flight
    now[0] += 1.1
    [again] = client.receive_message(QueueUrl=url)["Messages"]
    assert again["MessageId"] == first["MessageId"]
    assert again["Attributes"]["ApproximateReceiveCount"] == "2"
    client.delete_message(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"])  # stale
    now[0] += 1.1
    [third] = client.receive_message(QueueUrl=url)["Messages"]
    client.delete_message(QueueUrl=url, ReceiptHandle=third["ReceiptHandle"])
    now[0] += 1.1
    assert client.receive_message(QueueUrl=url).get("Messages", []) == []


def watched_waits(
    local: sqs.LocalSqs, queue: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[threading.Event, list[bool]]:
    """The queue's receivers' waits watched: an event set as one begins, and for each wait
    whether a change woke it (True) or the clock ended it."""
    arrived = local.broker.queues[queue].arrived
    real_wait = arrived.wait
    waiting = threading.Event()
    woken: list[bool] = []

    def wait(timeout: float | None = None) -> bool:
        waiting.set()
        woke = real_wait(timeout)
        woken.append(woke)
        return woke

    monkeypatch.setattr(arrived, "wait", wait)
    return waiting, woken


def test_a_long_poll_answers_as_soon_as_a_message_arrives(client, local, monkeypatch):
    url = client.create_queue(QueueName="Hits")["QueueUrl"]
    waiting, woken = watched_waits(local, "Hits", monkeypatch)
    sender = threading.Thread(
        target=lambda: waiting.wait() and client.send_message(QueueUrl=url, MessageBody="late")
    )
    sender.start()
    [message] = client.receive_message(QueueUrl=url, WaitTimeSeconds=5)["Messages"]
    sender.join()
    assert message["Body"] == "late"
    assert woken == [True]  # the message woke the receiver, not the end of a second's wait


def test_closing_ends_every_long_poll_at_once(client, local, monkeypatch):
    """As make serve stops: a receiver waiting out its 20 s is woken, by the close and not the
    clock, and answers empty; a receive after the close waits for nothing, and what is
    ready is still received."""
    url = client.create_queue(QueueName="Hits")["QueueUrl"]
    waiting, woken = watched_waits(local, "Hits", monkeypatch)
    answers: list[dict[str, Any]] = []
    receiver = threading.Thread(
        target=lambda: answers.append(client.receive_message(QueueUrl=url, WaitTimeSeconds=20))
    )
    receiver.start()
    waiting.wait()
    local.broker.close()
    receiver.join()
    assert answers[0].get("Messages", []) == []
    assert woken == [True]  # the close woke it, not the end of a second's wait
    client.send_message(QueueUrl=url, MessageBody="ready")
    [message] = client.receive_message(QueueUrl=url, WaitTimeSeconds=20)["Messages"]
    assert message["Body"] == "ready"
    assert client.receive_message(QueueUrl=url, WaitTimeSeconds=20).get("Messages", []) == []
    assert woken == [True]  # neither receive after the close waited


def test_an_unknown_queue_is_sqs_s_error(client):
    with pytest.raises(ClientError) as raised:
        client.send_message(QueueUrl="http://127.0.0.1/000000000000/Nope", MessageBody="x")
    assert raised.value.response["Error"]["Code"] == "AWS.SimpleQueueService.NonExistentQueue"


def test_a_send_wakes_only_the_receivers_of_its_queue(client, local, monkeypatch):
    """With every worker of `make serve` long-polling, a hit must not wake the others."""
    hits = client.create_queue(QueueName="Hits")["QueueUrl"]
    client.create_queue(QueueName="Digests")
    woken: list[str] = []
    for name in ("Hits", "Digests"):
        arrived = local.broker.queues[name].arrived
        monkeypatch.setattr(
            arrived,
            "notify_all",
            lambda name=name, real=arrived.notify_all: (woken.append(name), real()),
        )
    client.send_message(QueueUrl=hits, MessageBody="one")
    client.send_message_batch(QueueUrl=hits, Entries=[{"Id": "1", "MessageBody": "two"}])
    assert woken == ["Hits", "Hits"]


def test_many_in_flight_come_back_in_the_order_they_were_due(client, local):
    url = client.create_queue(QueueName="Hits")["QueueUrl"]
    now = [0.0]
    local.broker.clock = lambda: now[0]
    for index in range(30):
        client.send_message(QueueUrl=url, MessageBody=str(index))
    received = []
    for seconds in (3, 1, 2):  # three receives of ten, due back in 3, 1 and 2 s
        batch = client.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=seconds
        )
        received.append([m["Body"] for m in batch["Messages"]])
    assert client.receive_message(QueueUrl=url).get("Messages", []) == []  # all in flight
    now[0] += 5
    again = []
    for _ in range(3):
        batch = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
        again.append([m["Body"] for m in batch])
    assert again == [received[1], received[2], received[0]]
