"""GET /api/v1/audits/{id}/issues: a run's issues, most severe first, each with the pages
it affects; with `code`, that issue with a page of its pages, each with its reason; with
`format=csv`, one row an affected page, under headers people read."""

from sitelens.audits import results as audits
from sitelens.audits.inputs import AuditIssuesQuery
from sitelens.edge.exports import csv_file
from sitelens.edge.http import Request, Response, api_handler, ok

COLUMNS = ("title", "severity", "url", "reason", "fix", "learn_more", "code", "detail")
HEADERS = ("Issue", "Severity", "Page", "Reason", "Fix", "Learn more", "Issue code", "Found")


@api_handler
def handler(request: Request) -> Response:
    audit_id = request.record_id()
    query = AuditIssuesQuery.parse({k: v for k, v in request.query.items() if v != ""})
    if query.code is not None and query.format == "json":
        return ok(audits.issue_pages(request.account.id, audit_id, query))
    found = audits.issues(request.account.id, audit_id, query)
    if query.format == "csv":
        rows = audits.issue_rows(found)
        name = f"sitelens-audit-{audit_id}-issues.csv"
        return csv_file(COLUMNS, rows, name, headers=HEADERS)
    return ok(found)
