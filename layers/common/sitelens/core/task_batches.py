"""A batch of the tasks queue's messages of one kind, run one task at a time: a task that
raises is logged and counted, and its message delivered again (then dead-lettered), while
the others of the batch go on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sitelens.core import metrics
from sitelens.core.log import logger


def run_each(
    records: list[dict[str, Any]],
    read: Callable[[dict[str, Any]], tuple[str, int]],
    run: Callable[[str, int], object],
    failure_metric: str,
    what: str,
) -> list[str]:
    """Run `run(*read(record))` for each SQS record; the message ids of those that raised
    (logged as "`what` failed", counted under `failure_metric`), to deliver again."""
    failed = []
    for message in records:
        try:
            run(*read(message))
        except Exception:
            logger.exception(f"{what} failed", extra={"message_id": message.get("messageId")})
            metrics.count(failure_metric, 1, reason="error")
            failed.append(message["messageId"])
    return failed
