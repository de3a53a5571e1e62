"""GET and POST /api/v1/unsubscribe?token=...: stop the digests of the token's websites,
without a key (the link in each digest). Mail scanners fetch links, so a GET only shows
what the link would stop and a form that POSTs to the same URL; a POST stops them (also
RFC 8058's one-click from a mail client) and answers JSON, or a page to a browser."""

from collections.abc import Callable

from sitelens import digests
from sitelens.core import errors
from sitelens.edge import pages
from sitelens.edge.http import Request, Response, api_handler, ok, url_with


@api_handler(public=True)
def handler(request: Request) -> Response:
    token = request.query.get("token", "")
    if request.method == "GET":
        return _page(
            request, "unsubscribe.html", "Unsubscribe?", lambda: digests.to_unsubscribe(token)
        )
    if "text/html" not in request.headers.get("accept", ""):
        return ok({"unsubscribed": digests.unsubscribe(token)})
    return _page(request, "unsubscribed.html", "Unsubscribed", lambda: digests.unsubscribe(token))


def _page(
    request: Request, template: str, title: str, domains: Callable[[], list[str]]
) -> Response:
    """The page of `template` for the link's domains, or the invalid link's page."""
    try:
        found = domains()
    except errors.ApiError as err:
        return pages.page(
            request, "unsubscribed.html", err.status, title="Not unsubscribed", stopped=None
        )
    action = url_with(f"{request.base_url}/api/v1/unsubscribe", {"token": request.query["token"]})
    return pages.page(request, template, title=title, stopped=found, action=action)
