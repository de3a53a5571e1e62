"""Scheduled (CostProfile=lean): drain HitsQueue into the aggregator, a batch at a time."""

from typing import Any

from sitelens.analytics import draining
from sitelens.core import config, scopes
from sitelens.core.log import logger

config.require_all()  # at cold start: a missing setting fails the init, by name


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: what it reads comes from its queue
def handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    return draining.drain(context)
