"""AuditQueue's worker: each message one step of an audit's crawl (sitelens.audits.crawler).

A step that raises fails alone (ReportBatchItemFailures) and comes back after the queue's
visibility timeout; after three deliveries it waits in the dead-letter queue (alarmed).
A step put off (its account past its share, its host's slots booked far ahead) is sent
again, delayed, and counted (AuditStepsPutOff).
"""

from typing import Any

from sitelens.audits import crawler
from sitelens.core import config, metrics, scopes
from sitelens.core.log import logger

config.require_all()  # at cold start: a missing setting fails the init, by name


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: what it reads comes from its event or schedule
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        failed = crawler.handle(event.get("Records") or [])
    finally:
        metrics.flush()
    return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in failed]}
