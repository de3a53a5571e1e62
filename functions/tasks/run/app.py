"""SQS TasksQueue: run each task by the kind it names (sitelens.data.tasks): send a digest
once, remove a deleted website's statistics, write a website's export, read an import,
import a website's Search Console rows. A task that failed, or names no kind, is reported,
so that its message is delivered again and then dead-lettered.

Under CostProfile=lean no event source polls the queue: a schedule (TasksDrainSchedule)
invokes the function every quarter hour, and the run drains the queue itself, a task at a
time, the same steps for each (`drains.drain`)."""

from collections import defaultdict
from typing import Any

from sitelens import digests, initialized
from sitelens.analytics import cleanup, exports
from sitelens.analytics.imports import jobs as imports
from sitelens.analytics.searchconsole import imports as search_console_imports
from sitelens.core import config, metrics, scopes
from sitelens.core.log import logger
from sitelens.data import drains, queues, tasks

config.require_all()  # at cold start: a missing setting fails the init, by name

RUNS = {
    tasks.DIGEST: digests.send_batch,
    tasks.CLEANUP: cleanup.remove_batch,
    tasks.EXPORT: exports.run_batch,
    tasks.IMPORT: imports.run_batch,
    tasks.SEARCH_CONSOLE: search_console_imports.run_batch,
}
# A drain takes one task at a time and begins none with less than this left of its 300 s:
# a task takes about a minute at most (a digest's questions, 10,000 items of a cleanup); one
# cut short by the timeout comes back after the visibility timeout and resumes (claims,
# progress).
DRAIN_RESERVE_MS = 90_000


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: what it reads comes from its event or schedule
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    if "Records" not in event:  # the lean profile's schedule: drain the queue
        drained = drains.drain(
            context, run, queues.receive_tasks, queues.delete_tasks, 1, DRAIN_RESERVE_MS
        )
        logger.info("tasks drained", extra=drained)
        return drained
    return run(event)


def run(event: dict[str, Any]) -> dict[str, Any]:
    """Run a batch of task messages (a Lambda SQS event); those to be delivered again."""
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
