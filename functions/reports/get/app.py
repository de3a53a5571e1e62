"""GET /api/v1/reports/{id}: one report of the account."""

from sitelens import reports
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    return ok(reports.get(request.account.id, request.record_id(), request.base_url))
