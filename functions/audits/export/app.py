"""GET /api/v1/audits/{id}/runs/{run}/export.pdf: a done run's document to send (its score,
its changes since the run before, its issues by severity with their top pages and fixes,
its pages' field vitals), as a PDF."""

from sitelens.documents import audit_pdf
from sitelens.edge.exports import pdf_file
from sitelens.edge.http import Request, Response, api_handler


@api_handler
def handler(request: Request) -> Response:
    audit_id, run = request.record_id(), request.record_id("run")
    body = audit_pdf.build(request.account.id, audit_id, run)
    return pdf_file(body, audit_pdf.filename(audit_id, run))
