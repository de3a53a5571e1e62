"""Scheduled hourly: merge the warehouse's landed rows into one sorted, deduplicated
Parquet file per site and day (`sitelens.analytics.warehouse.compaction`)."""

from typing import Any

from sitelens.analytics.warehouse import compaction
from sitelens.core import metrics
from sitelens.core.log import logger


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    done = compaction.run()
    logger.info("compacted", extra=done)
    metrics.count("RowsCompacted", max(done["rows"], 0))
    metrics.flush()
    return done
