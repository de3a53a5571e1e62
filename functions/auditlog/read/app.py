"""GET /api/v1/audit-log (a page, newest first) and GET /api/v1/audit-log/export (CSV):
who did what, when, in the account; filtered by `actor` and `action`."""

from sitelens.accounts import audit_log
from sitelens.accounts.inputs import AuditLogQuery
from sitelens.edge.exports import csv_file
from sitelens.edge.http import Request, Response, api_handler, listed


@api_handler
def handler(request: Request) -> Response:
    query = AuditLogQuery.parse({k: v for k, v in request.query.items() if v != ""})
    if request.resource.endswith("/export"):
        rows = audit_log.export(request.account.id, query)
        return csv_file(audit_log.COLUMNS, rows, "audit-log.csv")
    return listed(request, audit_log.page(request.account.id, query))
