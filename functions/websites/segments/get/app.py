"""GET /api/v1/websites/{id}/segments/{segment_id}: one saved segment of a website."""

from sitelens.analytics import segments
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    segment_id = request.record_id("segment_id")
    return ok(segments.get(request.account.id, request.record_id(), segment_id))
