"""GET /api/v1/websites/{id}/search-console/authorize?property=...: a redirect to Google's
consent screen (the URL is in the body too), carrying a signed state that expires."""

from sitelens.analytics.searchconsole import connections
from sitelens.edge.http import Request, Response, api_handler


@api_handler
def handler(request: Request) -> Response:
    url = connections.consent(
        request.account.id,
        request.record_id(),
        request.query.get("property", ""),
        request.base_url,
    )
    return Response(302, {"data": {"url": url}, "status": 302}, {"Location": url})
