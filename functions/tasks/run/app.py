"""SQS TasksQueue: run each task by the kind it names (sitelens.data.tasks): send a digest
once, remove a deleted website's statistics. A task that failed, or names no kind, is
reported, so that its message is delivered again and then dead-lettered."""

from collections import defaultdict
from typing import Any

from sitelens import digests, initialized
from sitelens.analytics import cleanup
from sitelens.core import config, metrics, scopes
from sitelens.core.log import logger
from sitelens.data import tasks

config.require_all()  # at cold start: a missing setting fails the init, by name

RUNS = {tasks.DIGEST: digests.send_batch, tasks.CLEANUP: cleanup.remove_batch}


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: what it reads comes from its event or schedule
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    by_kind: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in event["Records"]:
        by_kind[tasks.kind_of(record)].append(record)
    failed = [record["messageId"] for record in by_kind.pop("", [])]
    if failed:
        logger.error("tasks of no kind", extra={"message_ids": failed})
    try:
        for kind, records in by_kind.items():
            failed += RUNS[kind](records)
    finally:
        metrics.flush()
    initialized()
    return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in failed]}
