"""POST /api/v1/websites/{id}/events: a keyed caller's past events, counted at their time."""

from sitelens.analytics import backfill
from sitelens.analytics.backfill import BackfillBatch
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    batch = BackfillBatch.parse(request.form())
    recorded = backfill.record(request.account.id, request.key_id, website_id, batch)
    return ok(recorded, status=202)
