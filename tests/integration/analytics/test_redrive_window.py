"""A hit redriven late is counted at most once: within the longest path its message can
take (the queue, the dead-letter queue, one redrive) its dedupe records are all there;
past it, the records may be gone (TTL), so the hit is parked, given back to SQS and never
counted. On moto and on DynamoDB Local."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest

from sitelens.analytics import counting
from sitelens.core import clock, config
from sitelens.data import queues
from tests.fixtures.analytics import failures, run
from tests.integration.analytics.test_counted_once import (  # noqa: F401 (fixtures)
    START,
    backend,
    batch_of,
    hits_of,
    redelivered_later,
    site,
    store,
)
from tests.integration.test_aggregator import stored_counts


def expire_records(before: datetime) -> int:
    """What DynamoDB's TTL removes by `before`: items whose `expires_at` has passed."""
    dynamodb = boto3.client("dynamodb")
    table = config.settings().stats_table
    gone = 0
    for page in dynamodb.get_paginator("scan").paginate(TableName=table):
        for item in page["Items"]:
            if "expires_at" in item and int(item["expires_at"]["N"]) < before.timestamp():
                dynamodb.delete_item(
                    TableName=table, Key={"series": item["series"], "slot": item["slot"]}
                )
                gone += 1
    return gone


def parked(capsys: pytest.CaptureFixture[str]) -> list[float]:
    """The HitsParked counts the aggregator's batches wrote (EMF lines) since last read."""
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if "{" in line]
    return [n for line in lines for n in line.get("HitsParked", [])]


def at(moment: datetime) -> Any:
    return lambda: moment


@pytest.mark.usefixtures("redelivered_later", "store")
def test_a_hit_redriven_past_its_longest_path_is_parked_never_counted(site, monkeypatch, capsys):  # noqa: F811
    monkeypatch.setattr(counting, "COUNTABLE_SECONDS", queues.HIT_LONGEST_PATH_SECONDS)
    account, wid = site
    hits = hits_of(wid, 4)  # at START .. START + 3 s
    assert run("HitsQueue", batch_of(hits, account)) == {"batchItemFailures": []}
    counted = stored_counts(wid)
    # Redriven at the end of the longest path: its records are all there, nothing added.
    monkeypatch.setattr(clock, "now", at(START + timedelta(seconds=counting.COUNTABLE_SECONDS)))
    assert run("HitsQueue", batch_of(hits, account, "redriven")) == {"batchItemFailures": []}
    assert stored_counts(wid) == counted and parked(capsys) == []
    # Redriven again, days later: its records expired; counted again it would count twice.
    later = datetime.now(UTC) + timedelta(seconds=counting.RECORDS_KEPT_SECONDS + 86_400)
    assert expire_records(later) > 0
    monkeypatch.setattr(clock, "now", at(later))
    answer = run("HitsQueue", batch_of(hits, account, "late"))
    assert failures(answer) == {f"late-{n}" for n in range(4)}  # given back, to the DLQ
    assert stored_counts(wid) == counted
    assert parked(capsys) == [4.0]
