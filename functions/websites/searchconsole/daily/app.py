"""Schedule (daily): queue a Search Console import of every connected website on the tasks
queue, where each resumes from its checkpoint (analytics.searchconsole.imports)."""

from typing import Any

from sitelens.analytics.searchconsole import imports
from sitelens.core import config, metrics, scopes
from sitelens.core.log import logger

config.require_all()  # at cold start: a missing setting fails the init, by name


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: a schedule
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        queued = imports.queue_due()
        logger.info("search console imports queued", extra={"queued": queued})
        return {"queued": queued}
    finally:
        metrics.flush()
