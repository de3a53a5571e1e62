"""A website's share views, without a key: `/share/{domain}` (page and its password form),
`/api/v1/share/websites/{domain}` (its dashboard as JSON), `.../stats` and `.../unlock`, and
the pages' assets."""

from sitelens.edge.http import Request, Response, api_handler
from sitelens.edge.share import views, websites

ROUTES = {
    ("GET", "/share/{domain}"): websites.page,
    ("POST", "/share/{domain}"): websites.page,
    ("GET", "/api/v1/share/websites/{domain}"): websites.figures,
    ("GET", "/api/v1/share/websites/{domain}/stats"): websites.statistics,
    ("POST", "/api/v1/share/websites/{domain}/unlock"): websites.unlock,
    ("GET", "/share/assets/{name}"): views.asset,
}


@api_handler(public=True)
def handler(request: Request) -> Response:
    return ROUTES[request.method, request.resource](request)
