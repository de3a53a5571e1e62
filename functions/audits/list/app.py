"""GET /api/v1/audits: one page of the account's audits; with `format=csv`, all of them."""

from sitelens.audits import records as audits
from sitelens.audits.inputs import AuditListQuery
from sitelens.edge.exports import csv_file
from sitelens.edge.http import Request, Response, api_handler, listed

COLUMNS = (
    "id",
    "name",
    "url",
    "status",
    "score",
    "high",
    "medium",
    "low",
    "run",
    "schedule",
    "created_at",
)


@api_handler
def handler(request: Request) -> Response:
    query = AuditListQuery.parse(request.query)
    if query.format == "csv":
        rows = (
            {**audit, **audit["issues"]}
            for audit in audits.every_record(request.account.id, query, request.base_url)
        )
        return csv_file(COLUMNS, rows, "sitelens-audits.csv")
    return listed(request, audits.list_page(request.account.id, query, request.base_url))
