"""POST /api/v1/websites: track a new website."""

from sitelens import models, websites
from sitelens.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    fields = models.WebsiteCreate.parse(request.form())
    return ok(websites.create(request.account.id, fields), status=201)
