"""SQS StatsCleanupQueue: remove the statistics of deleted websites."""

from typing import Any

from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)

from sitelens import initialized
from sitelens.analytics import cleanup
from sitelens.core import config, scopes
from sitelens.core.log import logger

config.require_all()  # at cold start: a missing setting fails the init, by name
# A batch where every removal failed is reported like any other: those messages retry.
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: what it reads comes from its event or schedule
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    response = dict(process_partial_response(event, cleanup.remove, processor, context))
    initialized()
    return response
