"""PUT, GET and DELETE /api/v1/websites/{id}/search-console: connect the website to a
Search Console property (a refresh token or a service account's key), show the connection
and its last import (never the secret), disconnect it and delete its imported rows."""

from sitelens.analytics.searchconsole import connections
from sitelens.analytics.searchconsole.connections import Connection
from sitelens.edge.http import Request, Response, api_handler, deleted, ok


@api_handler
def handler(request: Request) -> Response:
    account, website_id = request.account.id, request.record_id()
    if request.method in ("PUT", "PATCH"):
        fields = Connection.parse(request.form())
        return ok(connections.connect(account, website_id, fields))
    if request.method == "DELETE":
        return deleted(connections.disconnect(account, website_id), "search_console")
    return ok(connections.get(account, website_id))
