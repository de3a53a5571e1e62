"""POST /api/v1/audits/{id}/runs: start the audit's next run now."""

from sitelens.audits import records as audits
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    return ok(
        audits.run_again(request.account.id, request.record_id(), request.base_url), status=201
    )
