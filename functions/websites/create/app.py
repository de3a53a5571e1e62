"""POST /api/v1/websites: track a new website."""

from sitelens import websites
from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.websites.inputs import WebsiteCreate


@api_handler
def handler(request: Request) -> Response:
    fields = WebsiteCreate.parse(request.form())
    return ok(websites.create(request.account.id, fields), status=201)
