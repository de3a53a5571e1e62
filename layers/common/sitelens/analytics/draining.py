"""The lean profile's aggregator trigger: a scheduled drain of the hits queue instead of
Lambda's SQS event source.

At low traffic the event source's five pollers long-poll the queue all month and each
message comes back by itself (a long poll returns with the first message): a million hits
cost about 1.3M ReceiveMessage requests. Drained every few minutes, the same hits come ten
to a request and nothing polls an empty queue. The batches are the ones the aggregator
would get from a window of the drain's period, and it counts them exactly as it counts its
trigger's (`aggregation.aggregate`, idempotent by hit id): a message it reports failed is
left in the queue, comes back after the visibility timeout, and goes to the dead-letter
queue after maxReceiveCount, as with the event source.
"""

from __future__ import annotations

from typing import Any

from sitelens.analytics import aggregation
from sitelens.core.log import logger
from sitelens.data import drains, queues

BATCH_SIZE = 5000  # the aggregator's BatchSize in template.yaml (test_template holds them equal)
# Stop taking batches with this much of the run (30 s, as the aggregator's) left: a batch of
# BATCH_SIZE takes about 5 s (make bench), so a run drains about 25,000 hits, 80 a second
# over a five-minute period. Its messages stay invisible (VisibilityTimeout 480 s) well past
# the run, and no batch outlives it (counting.RUNNING_SECONDS holds).
RESERVE_MS = 15_000


def drain(
    context: Any,
    receive: drains.Receive = queues.receive_hits,
    delete: drains.Delete = queues.delete_hits,
) -> dict[str, int]:
    """Count what waits in the hits queue, a batch at a time, until it is empty or the run
    is nearly over (`drains.drain`); what was received, counted (deleted) and left for a
    retry. `receive` and `delete` are the queue's (tests hand a batch of their own)."""
    found = drains.drain(
        context,
        lambda event: aggregation.aggregate(event, context),
        receive,
        delete,
        BATCH_SIZE,
        RESERVE_MS,
    )
    undeleted = found.pop("undeleted")
    if undeleted:  # counted: they come back, are found counted, and are deleted then
        logger.warning("counted hits not deleted", extra={"messages": undeleted})
    logger.info("drained", extra=found)
    return found
