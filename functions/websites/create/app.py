"""POST /api/v1/websites: track a new website."""

from sitelens import websites
from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.webhooks import events
from sitelens.webhooks.registry import WEBSITE_CREATED
from sitelens.websites.inputs import WebsiteCreate


@api_handler
def handler(request: Request) -> Response:
    fields = WebsiteCreate.parse(request.form())
    record = websites.create(request.account.id, fields)
    events.emit(request.account.id, WEBSITE_CREATED, record, website=record["id"])
    return ok(record, status=201)
