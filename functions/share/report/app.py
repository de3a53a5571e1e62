"""A report's share views, without a key, addressed by its share id:
`/share/reports/{share_id}` (page and its password form), `/api/v1/share/reports/{share_id}`
and `/unlock`, and the pages' assets."""

from sitelens.edge.http import Request, Response, api_handler
from sitelens.edge.share import reports, views

ROUTES = {
    ("GET", "/share/reports/{share_id}"): reports.page,
    ("POST", "/share/reports/{share_id}"): reports.page,
    ("GET", "/api/v1/share/reports/{share_id}"): reports.report,
    ("POST", "/api/v1/share/reports/{share_id}/unlock"): reports.unlock,
    ("GET", "/share/assets/{name}"): views.asset,
}


@api_handler(public=True)
def handler(request: Request) -> Response:
    return ROUTES[request.method, request.resource](request)
