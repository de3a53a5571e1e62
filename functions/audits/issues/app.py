"""GET /api/v1/audits/{id}/issues: a run's issues, most severe first, each with the pages
it affects; with `format=csv`, one row an affected page."""

from sitelens.audits import results as audits
from sitelens.audits.inputs import AuditIssuesQuery
from sitelens.edge.exports import csv_file
from sitelens.edge.http import Request, Response, api_handler, ok

COLUMNS = ("code", "severity", "title", "url", "detail")


@api_handler
def handler(request: Request) -> Response:
    audit_id = request.record_id()
    query = AuditIssuesQuery.parse({k: v for k, v in request.query.items() if v != ""})
    found = audits.issues(request.account.id, audit_id, query)
    if query.format == "csv":
        rows = ({**issue, **page} for issue in found for page in issue["pages"])
        return csv_file(COLUMNS, rows, f"sitelens-audit-{audit_id}-issues.csv")
    return ok(found)
