"""GET /api/v1/websites/{id}: one website of the account."""

from sitelens import websites
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    return ok(websites.get(request.account.id, request.record_id()))
