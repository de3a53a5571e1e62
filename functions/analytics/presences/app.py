"""Kinesis hits stream (HitStream=kinesis): who is on each site now, written once per site
and flush rather than by the event function once per hit."""

from typing import Any

from sitelens import initialized
from sitelens.analytics import realtime
from sitelens.core import config, metrics, scopes
from sitelens.core.log import logger

config.require_all()  # at cold start: a missing setting fails the init, by name


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: what it writes comes from its event
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        return realtime.note_stream_batch(event.get("Records") or [])
    finally:
        metrics.flush()
        initialized()
