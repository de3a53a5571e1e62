"""POST /api/v1/websites/{id}/logs: access-log lines, their crawlers counted (docs/crawlers.md)."""

from sitelens.analytics.crawls import uploads
from sitelens.analytics.crawls.inputs import LogUpload
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    sent = LogUpload.parse(request.query)
    return ok(uploads.upload(request.account.id, website_id, request.body, *sent.reading()))
