"""GET and POST /api/v1/unsubscribe?token=...: stop the digests of the token's websites,
without a key (the link in each digest; POST is RFC 8058's one-click unsubscribe)."""

from sitelens import digests, errors
from sitelens.edge import pages
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler(public=True)
def handler(request: Request) -> Response:
    token = request.query.get("token", "")
    if request.method == "POST":
        return ok({"unsubscribed": digests.unsubscribe(token)})
    try:
        stopped = digests.unsubscribe(token)
    except errors.ApiError as err:
        return pages.page(
            request, "unsubscribed.html", err.status, title="Not unsubscribed", stopped=None
        )
    return pages.page(request, "unsubscribed.html", title="Unsubscribed", stopped=stopped)
