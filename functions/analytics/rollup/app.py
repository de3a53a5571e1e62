"""EventBridge Scheduler, daily at 01:30 UTC: write the month roll-ups of every website
whose month has closed, from its daily counters (`analytics.months`)."""

from dataclasses import asdict
from typing import Any

from sitelens.analytics import months
from sitelens.core import config, metrics, scopes
from sitelens.core.log import logger

config.require_all()  # at cold start: a missing setting fails the init, by name


class RollupsUnfinished(Exception):
    """Some months are not rolled up: the run fails, so Lambda runs it again (twice), and
    then the scheduled runs' dead-letter queue (alarmed) holds it."""


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: what it reads comes from its event or schedule
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        outcome = months.run(seconds_left=lambda: context.get_remaining_time_in_millis() / 1000)
    finally:
        metrics.flush()
    if outcome.rolled or not outcome.finished:  # a line only for a run that had work
        logger.info("months rolled up", extra=asdict(outcome))
    if not outcome.finished:
        raise RollupsUnfinished(f"{outcome.failed} failed, {outcome.left} left")
    return asdict(outcome)
