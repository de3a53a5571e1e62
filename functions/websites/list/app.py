"""GET /api/v1/websites: one page of the account's websites."""

from sitelens import models, websites
from sitelens.http import Request, Response, api_handler


@api_handler
def handler(request: Request) -> Response:
    query = models.WebsiteListQuery.parse(request.query)
    return websites.list_page(request.account.id, query).response(request)
