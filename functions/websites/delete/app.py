"""DELETE /api/v1/websites/{id}: stop tracking a website."""

from sitelens import websites
from sitelens.edge.http import Request, Response, api_handler, deleted
from sitelens.webhooks import events
from sitelens.webhooks.registry import WEBSITE_DELETED


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    websites.delete(request.account.id, website_id)
    events.emit(request.account.id, WEBSITE_DELETED, {"id": website_id}, website=website_id)
    return deleted(website_id, "website")
