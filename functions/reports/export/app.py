"""GET /api/v1/reports/{id}/export.pdf: the report as a document to send (its score, failed
checks by importance with their fixes, its field data), as a PDF."""

from sitelens.documents import report_pdf
from sitelens.edge.exports import pdf_file
from sitelens.edge.http import Request, Response, api_handler


@api_handler
def handler(request: Request) -> Response:
    report_id = request.record_id()
    body = report_pdf.build(request.account.id, report_id, request.base_url)
    return pdf_file(body, report_pdf.filename(report_id))
