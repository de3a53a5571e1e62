"""Removing a deleted website's statistics, from the tasks queue (delayed, so that hits
still in flight are dropped first), in bounded runs that resume where the last stopped; and
its raw events: each run marks the website deleted in the warehouse, whose next compaction
removes its files (`warehouse.deletions`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sitelens.analytics.hit import SERIES_NAMES
from sitelens.analytics.warehouse import deletions
from sitelens.core.log import logger
from sitelens.data import cleanups, queues

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

# One run deletes at most this many of a website's counters and registries: 400
# BatchWriteItems, well within the function's 60 s timeout. A larger website's removal is
# finished by the runs after it, each queued by the one before.
ITEMS_PER_RUN = 10_000


def remove(record: SQSRecord) -> int:
    """Delete up to ITEMS_PER_RUN more counters of the website a cleanup message names, from
    where the runs before stopped, and queue the next run while some are left; how many
    items every run has deleted. Each run marks the website deleted in the warehouse too
    (again on a retry: the mark is idempotent)."""
    website_id = queues.cleanup_website(record.raw_event)
    deletions.mark(website_id)  # first: from now on no compaction keeps its rows
    progress = cleanups.remove(website_id, SERIES_NAMES, ITEMS_PER_RUN)
    if not progress.done:
        queues.send_cleanup(website_id, delayed=False)  # the hits in flight were dropped
    logger.info(
        "stats removed",
        extra={"website_id": website_id, "items": progress.deleted, "done": progress.done},
    )
    return progress.deleted


def remove_batch(records: list[dict[str, Any]]) -> list[str]:
    """`remove` for each cleanup task of a batch (Lambda's SQS records); the message ids of
    those that failed, to be delivered again (each run resumes where the last stopped)."""
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

    failed = []
    for record in records:
        try:
            remove(SQSRecord(record))
        except Exception:
            logger.exception("stats not removed", extra={"message_id": record["messageId"]})
            failed.append(record["messageId"])
    return failed
