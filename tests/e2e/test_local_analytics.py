"""`make serve` counts hits: the real program over HTTP, its queue worker feeding the
aggregator in batches, statistics readable once a batch is counted (how soon is measured
by `python -m tests.load`, not asserted here)."""

from __future__ import annotations

import json
import time
import urllib.request
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.error import HTTPError
from urllib.parse import urlencode

import boto3
import pytest

from tests.e2e.test_local_server import OPENER, Server, start_server
from tests.fixtures.analytics import CHROME

KEY = "sl_test_analytics_" + uuid.uuid4().hex


@pytest.fixture(scope="module")
def server(worker_dynamodb: str | None) -> Iterator[Server]:
    running = start_server(
        dynamodb=worker_dynamodb, SITELENS_DEV_API_KEY=KEY, POWERTOOLS_LOG_LEVEL="INFO"
    )
    try:
        yield running
    finally:
        if running.process.poll() is None:
            running.stop()


def send(url: str, form: dict[str, str] | None = None, **headers: str) -> tuple[int, Any]:
    data = urlencode(form).encode() if form is not None else None
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with OPENER.open(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except HTTPError as err:
        return err.code, json.loads(err.read())


def hit(server: Server, page: str) -> int:
    status, _ = send(f"{server.analytics}/api/event", {"page": page}, **{"User-Agent": CHROME})
    return status


def pageviews(server: Server, website_id: int) -> int:
    status, body = send(
        f"{server.analytics}/api/v1/stats/{website_id}?name=pageviews",
        Authorization=f"Bearer {KEY}",
    )
    assert status == 200, body
    return sum(row["count"] for row in body["data"])


def counted(server: Server, website_id: int, expected: int) -> None:
    """Wait until the stats show `expected` pageviews; a minute without them is a hang."""
    hung = time.monotonic() + 60
    while (found := pageviews(server, website_id)) < expected:
        assert time.monotonic() < hung, f"{found} of {expected} counted"
        time.sleep(0.05)
    assert found == expected


def batches(server: Server) -> list[int]:
    """The messages of each batch the aggregator counted so far."""
    return [
        json.loads(line)["messages"]
        for line in server.lines
        if line.startswith("{") and '"aggregated"' in line
    ]


def website(server: Server, domain: str) -> int:
    status, body = send(
        f"{server.analytics}/api/v1/websites", {"domain": domain}, Authorization=f"Bearer {KEY}"
    )
    assert status == 201, body
    website_id: int = body["data"]["id"]
    return website_id


def test_a_lone_hit_is_counted_in_a_batch_of_its_own(server: Server) -> None:
    website_id = website(server, "quick.example.com")
    before = len(batches(server))
    assert hit(server, "https://quick.example.com/pricing") == 202
    counted(server, website_id, 1)
    hung = time.monotonic() + 60
    while len(batches(server)) == before:  # its log line may follow the stats' write
        assert time.monotonic() < hung
        time.sleep(0.05)
    # the worker stops gathering after at most 1 s: it does not wait for company
    assert batches(server)[before:] == [1]


def test_a_burst_is_counted_once_in_batches(server: Server) -> None:
    website_id = website(server, "busy.example.com")
    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(
            pool.map(lambda n: hit(server, f"https://busy.example.com/p/{n}"), range(120))
        )
    assert statuses == [202] * 120
    counted(server, website_id, 120)
    # Every message was deleted after counting (batches of more than 10 included).
    [endpoint] = [line.split()[-1] for line in server.lines if line.strip().startswith("SQS:")]
    sqs = boto3.client(
        "sqs",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    url = sqs.get_queue_url(QueueName="HitsQueue")["QueueUrl"]
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    empty = {name: "0" for name in names}

    def waiting() -> dict[str, str]:
        return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]

    hung = time.monotonic() + 60  # the worker deletes a batch once its writes are done
    while (left := waiting()) != empty:
        assert time.monotonic() < hung, left
        time.sleep(0.05)
    assert max(batches(server)) > 10  # the worker gathers several receives into one batch
