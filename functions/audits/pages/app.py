"""GET /api/v1/audits/{id}/pages: a run's crawled pages, by issue (each with its reason),
status code or depth, sorted by a column once the run is done; with `url`, that page with
its issues; with `format=csv`, all of them."""

from sitelens.audits import results as audits
from sitelens.audits.inputs import AuditPagesQuery
from sitelens.edge.exports import csv_file
from sitelens.edge.http import Request, Response, api_handler, listed, ok

COLUMNS = (
    "url",
    "status_code",
    "depth",
    "response_time_ms",
    "word_count",
    "inlinks",
    "link_score",
    "redirect_to",
    "title",
    "canonical",
    "noindex",
    "in_sitemap",
    "external",
    "blocked",
    "score",
    "error",
)


@api_handler
def handler(request: Request) -> Response:
    audit_id = request.record_id()
    query = AuditPagesQuery.parse({k: v for k, v in request.query.items() if v != ""})
    if query.url is not None and query.format == "json":
        return ok(audits.page_issues(request.account.id, audit_id, query))
    if query.format == "csv":
        rows = audits.every_page(request.account.id, audit_id, query)
        return csv_file(COLUMNS, rows, f"sitelens-audit-{audit_id}-pages.csv")
    return listed(request, audits.pages_page(request.account.id, audit_id, query))
