"""GET /js/script.js: the tracking script websites embed (public)."""

from sitelens.analytics import script
from sitelens.edge.http import Request, Response, api_handler, cacheable


@api_handler(public=True)
def handler(request: Request) -> Response:
    tracking = script.tracking_script()
    return cacheable(
        request, tracking.source, tracking.etag, script.CONTENT_TYPE, script.CACHE_CONTROL
    )
