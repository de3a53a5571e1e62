"""GET /js/script.js: the tracking script websites embed (public)."""

from sitelens.analytics import script
from sitelens.edge.http import Request, Response, api_handler, cacheable


@api_handler(public=True)
def handler(request: Request) -> Response:
    tracking = script.tracking_script()
    answer = cacheable(
        request, tracking.source, tracking.etag, script.CONTENT_TYPE, script.CACHE_CONTROL
    )
    # pages may measure how long the script took to load (Resource Timing)
    answer.headers["Timing-Allow-Origin"] = "*"
    return answer
