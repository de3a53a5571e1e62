"""Scheduled hourly: the warehouse's landed rows into one small part per site-day; daily,
invoked with `{"merge": true}`: a closed day's parts folded into one sorted, deduplicated
Parquet file per site and day, with its summaries (`sitelens.analytics.warehouse.compaction`).
Invoked with `{"backfill": true}`: summaries for site-days merged before they existed."""

from typing import Any

from sitelens.analytics.warehouse import compaction
from sitelens.core import metrics, scopes
from sitelens.core.log import logger


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: what it reads comes from its event or schedule
def handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    if isinstance(event, dict) and event.get("backfill") is True:
        summarised = compaction.backfill_bucket()
        logger.info("summaries backfilled", extra=summarised)
        return summarised
    if isinstance(event, dict) and event.get("merge") is True:
        merged = compaction.run(merge=True)
        logger.info("merged", extra=merged)  # daily: a line each run
        metrics.flush()  # CompactionsSkipped, when it found the lease held
        return merged
    done = compaction.run()
    if any(done.values()):  # hourly: a line only when there was something to compact
        logger.info("compacted", extra=done)
    metrics.count("RowsCompacted", max(done["rows"], 0))
    metrics.flush()
    return done
