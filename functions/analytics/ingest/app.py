"""Scheduled hourly (WarehouseEngine=clickhouse): insert each closed landing hour into
ClickHouse (`sitelens.analytics.warehouse.ingest`). A failed hour fails the run, which
Lambda tries twice more and then sends to the schedule's dead-letter queue (alarmed)."""

from typing import Any

from sitelens.analytics.warehouse import ingest
from sitelens.core import metrics, scopes
from sitelens.core.log import logger


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: the landing files are every site's
def handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    try:
        done = ingest.run()
    finally:
        metrics.flush()
    if done["hours"]:  # hourly: a line only when something went in
        logger.info("inserted into ClickHouse", extra=done)
    return done
