"""POST /api/v1/query: Stats API v2 queries over raw events (visitors, visits, bounce...)."""

from sitelens.analytics import queries
from sitelens.edge.http import Request, Response, api_handler


@api_handler
def handler(request: Request) -> Response:
    return Response(200, queries.run(request.account.id, request.form()))
