"""GET /api/v1/audits/{id}/runs: the audit's runs, newest first."""

from sitelens.audits import records as audits
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    return ok(audits.runs(request.account.id, request.record_id()))
