"""Digests queued: one task (`data.tasks`, kind "digest") per account and period whose
digest is to be sent, from the daily planner to the sender. A message names its digest
(account and period), never an address: the sender reads that when it sends."""

from __future__ import annotations

import json
from typing import Any

from sitelens.core.config import settings
from sitelens.core.log import logger
from sitelens.data import batches, tasks


def send(digests: list[tuple[str, str]]) -> int:
    """Queue these (account, period) digests; how many could not be queued (those SQS still
    failed or refused, and those after them, never sent), logged: the planner counts them,
    and the next day's plan queues them again."""
    bodies = [
        tasks.body(tasks.DIGEST, {"account": account, "period": period})
        for account, period in digests
    ]
    try:
        batches.send(settings().task_queue_url, bodies)
    except batches.Unprocessed as lost:
        logger.error("digests not queued", extra={"count": lost.left, "codes": list(lost.codes)})
        return lost.left
    return 0


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
