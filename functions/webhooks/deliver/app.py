"""SQS WebhookQueue: make each message's delivery attempt (or wait on, when it is not due);
a message that could not be handled is reported, to be delivered again, then dead-lettered.
An endpoint that fails is no failure here: its delivery is scheduled again."""

from typing import Any

from sitelens import initialized
from sitelens.core import config, metrics, scopes
from sitelens.core.log import logger
from sitelens.webhooks import deliveries

config.require_all()  # at cold start: a missing setting fails the init, by name


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: what it reads comes from its event or schedule
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        failed = deliveries.attempt_batch(event["Records"])
    finally:
        metrics.flush()
    initialized()
    return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in failed]}
