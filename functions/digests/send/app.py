"""EventBridge Scheduler, daily: send the email digests due today (weekly ones on Mondays,
monthly ones on the 1st), each at most once."""

from dataclasses import asdict
from typing import Any

from sitelens import clock, config, digests, initialized
from sitelens.log import logger

config.require_all()  # at cold start: a missing setting fails the init, by name


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    outcome = asdict(digests.send_due(clock.now().date()))
    logger.info("digests", extra=outcome)
    initialized()
    return outcome
