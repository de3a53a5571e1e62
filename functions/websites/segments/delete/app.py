"""DELETE /api/v1/websites/{id}/segments/{segment_id}: remove a saved segment."""

from sitelens.analytics import segments
from sitelens.edge.http import Request, Response, api_handler, deleted


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    segment_id = request.record_id("segment_id")
    segments.delete(request.account.id, website_id, segment_id)
    return deleted(segment_id, "segment")
