"""Hits on a Kinesis data stream (HitStream=kinesis in template.yaml), on their way to the
aggregator and the presence writer: the only code that talks to Kinesis.

A record's data is the hit's account, a newline, then the hit (`Hit.to_json`): a stream
record has no attributes, so the account travels in it. Its partition key is the hit's
id, which spreads one busy site's hits over every shard (no hot shard); neither consumer
needs a site's hits in order (counting is by hit id, presences keep the latest).
"""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass
from typing import Any

from sitelens.core.config import settings
from sitelens.data.clients import client

SEPARATOR = "\n"  # between the account and the hit in a record's data


@dataclass(frozen=True)
class StreamedHit:
    """One hit as a Lambda event source mapping hands it over."""

    sequence: str  # the record's sequence number: its id in a partial batch response
    account: str  # "" when the record holds none (unreadable)
    body: str  # the hit's JSON, or the record's whole data when it is unreadable
    arrived: float  # Unix seconds the stream took it (approximateArrivalTimestamp)


def put(account_id: str, hit_json: str, hit_id: str = "") -> None:
    """Put one hit of one of the account's websites on the stream; raises as boto3 does
    (a throttle, ProvisionedThroughputExceededException, after boto3's own retries)."""
    client("kinesis").put_record(
        StreamName=settings().hits_stream,
        Data=f"{account_id}{SEPARATOR}{hit_json}".encode(),
        PartitionKey=hit_id or uuid.uuid4().hex,
    )


def is_stream_batch(records: list[dict[str, Any]]) -> bool:
    """Whether a Lambda event's records come from Kinesis (else SQS)."""
    return bool(records) and records[0].get("eventSource") == "aws:kinesis"


def read(record: dict[str, Any]) -> StreamedHit:
    """A Kinesis record of a Lambda event as the hit it carries (undecodable data is kept
    whole, with no account, for the parking queue)."""
    kinesis = record["kinesis"]
    data = base64.b64decode(kinesis["data"]).decode("utf-8", "replace")
    account, found, body = data.partition(SEPARATOR)
    arrived = float(kinesis.get("approximateArrivalTimestamp") or 0)
    if not found:
        return StreamedHit(kinesis["sequenceNumber"], "", data, arrived)
    return StreamedHit(kinesis["sequenceNumber"], account, body, arrived)
