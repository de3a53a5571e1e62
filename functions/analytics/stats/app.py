"""GET /api/v1/stats/{id}: one statistic of a website, summed per value over a period; with
`format=csv`, every row of the period as a file."""

from sitelens.analytics import stats
from sitelens.analytics.inputs import StatsQuery
from sitelens.edge.exports import csv_file
from sitelens.edge.http import Request, Response, api_handler, listed


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    query = StatsQuery.parse(request.query)
    if query.format == "csv":
        first, last = query.period()
        name = f"sitelens-{website_id}-{query.name}-{first}-{last}.csv"
        return csv_file(
            ("value", "count"), stats.every_row(request.account.id, website_id, query), name
        )
    return listed(request, stats.page(request.account.id, website_id, query))
