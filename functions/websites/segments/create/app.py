"""POST /api/v1/websites/{id}/segments: a new saved segment (a name and the query API's
filters)."""

from sitelens.analytics import segments
from sitelens.analytics.segments.inputs import SegmentCreate
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    fields = SegmentCreate.parse(request.form())
    return ok(segments.create(request.account.id, website_id, fields), status=201)
