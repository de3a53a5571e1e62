"""POST /api/v1/journeys/query: the pages viewed next after a page, or the paths of visits
from their entry, over raw events."""

from sitelens.analytics import journeys
from sitelens.edge.http import Request, Response, api_handler


@api_handler
def handler(request: Request) -> Response:
    return Response(200, journeys.run(request.account.id, request.form()))
