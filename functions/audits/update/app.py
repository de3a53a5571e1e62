"""PUT or PATCH /api/v1/audits/{id}: change an audit's settings, from its next run on."""

from sitelens.audits import records as audits
from sitelens.audits.inputs import AuditUpdate
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    audit_id = request.record_id()
    fields = AuditUpdate.parse(request.form())
    return ok(audits.update(request.account.id, audit_id, fields, request.base_url))
