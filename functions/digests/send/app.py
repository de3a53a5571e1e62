"""SQS DigestQueue: send each message's digest (one account, one period) once; a failed
one is reported, so that its message is delivered again and then dead-lettered."""

from typing import Any

from sitelens import digests, initialized
from sitelens.core import config, metrics, scopes
from sitelens.core.log import logger

config.require_all()  # at cold start: a missing setting fails the init, by name


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: what it reads comes from its event or schedule
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        failed = digests.send_batch(event["Records"])
    finally:
        metrics.flush()
    initialized()
    return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in failed]}
