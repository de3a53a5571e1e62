"""A website's share views, without a key: `/share/{domain}` (page and its password form),
`/api/v1/share/websites/{domain}/stats` and `/unlock`, and the pages' assets."""

from sitelens.edge import share
from sitelens.edge.http import Request, Response, api_handler

ROUTES = {
    ("GET", "/share/{domain}"): share.website_page,
    ("POST", "/share/{domain}"): share.website_page,
    ("GET", "/api/v1/share/websites/{domain}/stats"): share.website_stats,
    ("POST", "/api/v1/share/websites/{domain}/unlock"): share.website_unlock,
    ("GET", "/share/assets/{name}"): share.asset,
}


@api_handler(public=True)
def handler(request: Request) -> Response:
    return ROUTES[request.method, request.resource](request)
