"""GET /api/v1/openapi.json, /api/v1/docs and /api/v1/docs/redoc.js on either API: its
OpenAPI document and a reference page that renders it (public)."""

from sitelens.edge import docs
from sitelens.edge.http import Request, Response, api_handler


@api_handler(public=True)
def handler(request: Request) -> Response:
    return docs.respond(request)
