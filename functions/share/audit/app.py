"""An audit's share views, without a key, addressed by its share id:
`/share/audits/{share_id}` (page and its password form), `/api/v1/share/audits/{share_id}`
and `/unlock`."""

from sitelens.edge.http import Request, Response, api_handler
from sitelens.edge.share import audits

ROUTES = {
    ("GET", "/share/audits/{share_id}"): audits.page,
    ("POST", "/share/audits/{share_id}"): audits.page,
    ("GET", "/api/v1/share/audits/{share_id}"): audits.audit,
    ("POST", "/api/v1/share/audits/{share_id}/unlock"): audits.unlock,
}


@api_handler(public=True)
def handler(request: Request) -> Response:
    return ROUTES[request.method, request.resource](request)
