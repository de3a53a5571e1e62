"""PUT /api/v1/websites/{id}/logs/source: pull the website's access logs from the customer's S3."""

from sitelens.analytics.crawls import pulls
from sitelens.analytics.crawls.pulls import LogSource
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    source = LogSource.parse(request.form())
    return ok(pulls.connect(request.account.id, website_id, source))
