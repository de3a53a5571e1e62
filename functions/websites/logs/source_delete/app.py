"""DELETE /api/v1/websites/{id}/logs/source: stop pulling the website's access logs."""

from sitelens.analytics.crawls import pulls
from sitelens.edge.http import Request, Response, api_handler, no_content


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    pulls.disconnect(request.account.id, website_id)
    return no_content({})  # no body at all: a 204's `null` would corrupt a kept-alive connection
