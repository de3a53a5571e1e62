"""PUT or PATCH /api/v1/websites/{id}: change a website's settings."""

from sitelens import websites
from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.websites.inputs import WebsiteUpdate


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    fields = WebsiteUpdate.parse(request.form())
    return ok(websites.update(request.account.id, website_id, fields))
