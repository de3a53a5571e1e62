"""SQS HitsQueue: count a batch of hits into the stats table, reporting partial failures."""

from typing import Any

from sitelens import stats
from sitelens.log import logger


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return stats.aggregate(event, context)
