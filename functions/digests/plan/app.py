"""EventBridge Scheduler, daily: plan the email digests, one message on the digest queue
for each account whose digest of the last complete week or month is still to be sent."""

from dataclasses import asdict
from typing import Any

from sitelens import digests, initialized
from sitelens.core import clock, config, metrics, scopes
from sitelens.core.log import logger

config.require_all()  # at cold start: a missing setting fails the init, by name


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: what it reads comes from its event or schedule
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        plan = asdict(digests.plan(clock.now().date()))
    finally:
        metrics.flush()
    if plan["queued"] or plan["given_up"] or plan["not_queued"]:  # a line for a plan that did
        logger.info("digests planned", extra=plan)
    initialized()
    return plan
