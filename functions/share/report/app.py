"""A report's share views, without a key: `/share/reports/{id}` (page and its password
form), `/api/v1/share/reports/{id}` and `/unlock`, and the pages' assets."""

from sitelens.edge import share
from sitelens.edge.http import Request, Response, api_handler

ROUTES = {
    ("GET", "/share/reports/{id}"): share.report_page,
    ("POST", "/share/reports/{id}"): share.report_page,
    ("GET", "/api/v1/share/reports/{id}"): share.report,
    ("POST", "/api/v1/share/reports/{id}/unlock"): share.report_unlock,
    ("GET", "/share/assets/{name}"): share.asset,
}


@api_handler(public=True)
def handler(request: Request) -> Response:
    return ROUTES[request.method, request.resource](request)
