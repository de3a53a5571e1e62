"""PUT or PATCH /api/v1/websites/{id}/segments/{segment_id}: rename a segment or change its
filters."""

from sitelens.analytics import segments
from sitelens.analytics.segments.inputs import SegmentUpdate
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    segment_id = request.record_id("segment_id")
    fields = SegmentUpdate.parse(request.form())
    return ok(segments.update(request.account.id, website_id, segment_id, fields))
