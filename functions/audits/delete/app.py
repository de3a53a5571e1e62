"""DELETE /api/v1/audits/{id}: cancel the audit's crawl and delete it."""

from sitelens.audits import records as audits
from sitelens.edge.http import Request, Response, api_handler, deleted


@api_handler
def handler(request: Request) -> Response:
    audit_id = request.record_id()
    audits.delete(request.account.id, audit_id)
    return deleted(audit_id, "audit")
