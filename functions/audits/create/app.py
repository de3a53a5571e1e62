"""POST /api/v1/audits: store an audit and queue its first crawl."""

from sitelens.audits import records as audits
from sitelens.audits.inputs import AuditCreate
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    fields = AuditCreate.parse(request.form())
    return ok(audits.create(request.account.id, fields, request.base_url), status=201)
