"""Removing a deleted website's statistics, from the cleanup queue (delayed, so that hits
still in flight are dropped first)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sitelens.analytics.hit import SERIES_NAMES
from sitelens.data import queues, stats
from sitelens.log import logger

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord


def remove(record: SQSRecord) -> int:
    """Delete every counter of the website a cleanup message names; how many there were."""
    website_id = queues.cleanup_website(record.raw_event)
    removed = stats.delete_all(website_id, SERIES_NAMES)
    logger.info("stats removed", extra={"website_id": website_id, "items": removed})
    return removed
