"""GET /api/v1/websites: one page of the account's websites."""

from sitelens import websites
from sitelens.edge.http import Request, Response, api_handler, listed
from sitelens.websites.inputs import WebsiteListQuery


@api_handler
def handler(request: Request) -> Response:
    query = WebsiteListQuery.parse(request.query)
    return listed(request, websites.list_page(request.account.id, query))
