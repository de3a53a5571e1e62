"""PUT or PATCH /api/v1/websites/{id}: change a website's settings."""

from sitelens import models, websites
from sitelens.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    fields = models.WebsiteUpdate.parse(request.form())
    return ok(websites.update(request.account.id, website_id, fields))
