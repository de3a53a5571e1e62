"""POST /api/v1/funnels/query: a funnel of a website's goals (visitors and conversion of
each step) over raw events."""

from sitelens.analytics import funnels
from sitelens.edge.http import Request, Response, api_handler


@api_handler
def handler(request: Request) -> Response:
    return Response(200, funnels.run(request.account.id, request.form()))
