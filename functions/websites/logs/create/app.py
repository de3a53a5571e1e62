"""POST /api/v1/websites/{id}/logs: access-log lines, their crawlers counted (docs/crawlers.md)."""

from sitelens.analytics.crawls import uploads
from sitelens.analytics.crawls.inputs import LogUpload, check_media_type
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    check_media_type(request.headers.get("content-type"))
    sent = LogUpload.parse(request.query)
    return ok(uploads.upload(request.account.id, website_id, request.body, *sent.reading()))
