"""GET /api/v1/websites/{id}/crawls/unvisited: pages crawlers fetched that no visitor saw."""

from sitelens.audits import unvisited
from sitelens.audits.unvisited import UnvisitedQuery
from sitelens.edge.http import Request, Response, api_handler


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    query = UnvisitedQuery.parse(request.query)
    return Response(200, unvisited.pages(request.account.id, website_id, query))
