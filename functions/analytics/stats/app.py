"""GET /api/v1/stats/{id}: one statistic of a website, summed per value over a period."""

from sitelens.analytics import stats
from sitelens.analytics.inputs import StatsQuery
from sitelens.edge.http import Request, Response, api_handler, listed


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    query = StatsQuery.parse(request.query)
    return listed(request, stats.page(request.account.id, website_id, query))
