"""GET /api/v1/stats/{id}: one statistic of a website, summed per value over a period."""

from sitelens import models, stats
from sitelens.http import Request, Response, api_handler


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    query = models.StatsQuery.parse(request.query)
    return stats.page(request.account.id, website_id, query).response(request)
