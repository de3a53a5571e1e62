"""GET /js/script.js: the tracking script websites embed (public)."""

from sitelens import script
from sitelens.http import Request, Response, api_handler


@api_handler(public=True)
def handler(request: Request) -> Response:
    return script.response(request)
