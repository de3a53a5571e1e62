"""GET /api/v1/audits/{id}/runs/{run}/changes.csv: each URL that changed since the run before
(or `against` another run): added, removed, or its status, title, canonical,
indexability, word count or depth changed, with the old and the new values."""

from sitelens.audits import changes
from sitelens.audits.inputs import AuditChangesQuery
from sitelens.edge.exports import csv_file
from sitelens.edge.http import Request, Response, api_handler


@api_handler
def handler(request: Request) -> Response:
    audit_id, run = request.record_id(), request.record_id("run")
    query = AuditChangesQuery.parse({k: v for k, v in request.query.items() if v != ""})
    rows = changes.between(request.account.id, audit_id, run, query.against)
    return csv_file(changes.COLUMNS, rows, f"sitelens-audit-{audit_id}-run-{run}-changes.csv")
