"""GET /api/v1/audits/{id}: one audit of the account, with its run's status and progress."""

from sitelens.audits import records as audits
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    return ok(audits.get(request.account.id, request.record_id(), request.base_url))
