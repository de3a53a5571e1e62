"""POST /api/v1/websites/{id}/imports: import the website's history from a file (multipart
`file`) or from an object of the customer's bucket."""

from sitelens.analytics.imports import jobs as imports
from sitelens.analytics.imports.jobs import ImportCreate
from sitelens.edge import uploads
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    upload = uploads.of_request(request)
    fields = ImportCreate.parse(upload.fields)
    found = imports.request_import(
        request.account.id, website_id, fields, upload.file, upload.filename
    )
    return ok(found, status=202)
