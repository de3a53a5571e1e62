"""The digest queue: one message per account and period whose digest is to be sent, from
the daily planner to the sender. A message names its digest (account and period), never
an address: the sender reads that when it sends."""

from __future__ import annotations

import json
from typing import Any

from sitelens.core.config import settings
from sitelens.core.log import logger
from sitelens.data.clients import client

BATCH = 10  # SendMessageBatch's limit
TRIES = 3  # a batch's entries SQS failed (throttled, internal errors) are sent again


def send(digests: list[tuple[str, str]]) -> int:
    """Queue these (account, period) digests, ten to a call; how many could not be queued."""
    lost = 0
    for start in range(0, len(digests), BATCH):
        entries = [
            {"Id": str(n), "MessageBody": json.dumps({"account": account, "period": period})}
            for n, (account, period) in enumerate(digests[start : start + BATCH])
        ]
        for _ in range(TRIES):
            answer = client("sqs").send_message_batch(
                QueueUrl=settings().digest_queue_url, Entries=entries
            )
            failed = {f["Id"]: f for f in answer.get("Failed") or []}
            entries = [e for e in entries if e["Id"] in failed]
            if not entries:
                break
        if entries:
            reasons = sorted({failed[e["Id"]].get("Code", "") for e in entries})
            logger.error("digests not queued", extra={"count": len(entries), "codes": reasons})
            lost += len(entries)
    return lost


def digest_of(body: str) -> tuple[str, str]:
    """The (account, period) a message's body names; ValueError for anything else."""
    try:
        data: Any = json.loads(body)
        account, period = data["account"], data["period"]
    except (ValueError, TypeError, KeyError):
        raise ValueError("not a digest message") from None
    if not (isinstance(account, str) and account and isinstance(period, str) and period):
        raise ValueError("not a digest message")
    return account, period
