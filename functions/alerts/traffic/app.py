"""EventBridge Scheduler, hourly at 20 past: judge the last complete hour of every website
with recent traffic, and alert on spikes and drops (email, traffic.* webhook events)."""

from dataclasses import asdict
from typing import Any

from sitelens.core import config, metrics, scopes
from sitelens.core.log import logger
from sitelens.webhooks import traffic

config.require_all()  # at cold start: a missing setting fails the init, by name


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: what it reads comes from its event or schedule
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        outcome = traffic.run()
    finally:
        metrics.flush()
    if outcome.judged or outcome.left_over:  # a line only for an hour that had traffic
        logger.info("traffic alerts", extra=asdict(outcome))
    return asdict(outcome)
