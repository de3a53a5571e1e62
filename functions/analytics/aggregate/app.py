"""SQS HitsQueue: count a batch of hits into the stats table, reporting partial failures."""

from typing import Any

from sitelens.analytics import aggregation
from sitelens.core import config, scopes
from sitelens.core.log import logger

config.require_all()  # at cold start: a missing setting fails the init, by name


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: what it reads comes from its event or schedule
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return aggregation.aggregate(event, context)
