"""EventBridge Scheduler, hourly: pull every website's new access-log objects from the
customer's S3 prefix, as the role they grant (`analytics.crawls.pulls`)."""

from dataclasses import asdict
from typing import Any

from sitelens.analytics.crawls import pulls
from sitelens.core import config, metrics, scopes
from sitelens.core.log import logger

config.require_all()  # at cold start: a missing setting fails the init, by name


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: what it reads comes from its schedule
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        outcome = pulls.pull_all(lambda: context.get_remaining_time_in_millis() / 1000)
    finally:
        metrics.flush()
    if outcome.objects or outcome.failed:  # a line only for a run that had work
        logger.info("access logs pulled", extra=asdict(outcome))
    return asdict(outcome)
