"""EventBridge Scheduler, every minute: send `goal.converted` for each website whose goals
converted in a minute that ended at least a minute ago (docs/keys-and-webhooks.md)."""

from dataclasses import asdict
from typing import Any

from sitelens.core import config, metrics, scopes
from sitelens.core.log import logger
from sitelens.webhooks import goals

config.require_all()  # at cold start: a missing setting fails the init, by name


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: what it reads comes from its event or schedule
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        outcome = goals.run()
    finally:
        metrics.flush()
    if outcome.sent or outcome.failed:  # every minute: a line only for a pass that sent
        logger.info("goal.converted", extra=asdict(outcome))
    return asdict(outcome)
