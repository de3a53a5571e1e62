"""GET /api/v1/search-console/callback?code=...&state=...: Google's redirect back after
consent (public: the signed state names the website); the code exchanged for a refresh
token, which is stored as the website's connection, and its backfill queued."""

from sitelens.analytics.searchconsole import connections
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler(public=True)
def handler(request: Request) -> Response:
    return ok(connections.callback(dict(request.query), request.base_url))
