"""GET /share/logos/{logo}: a brand's stored logo, by the hash of its bytes (no key: share
pages and client emails show it; never the owner's server, which is fetched once)."""

from sitelens.brands import logos
from sitelens.core import errors
from sitelens.edge.http import Request, Response, api_handler, cacheable


@api_handler(public=True)
def handler(request: Request) -> Response:
    name = request.path_params.get("logo", "")
    found = logos.stored(name)
    if found is None:
        raise errors.NotFound()
    content_type, body = found
    # the same address is always the same bytes: cached for a year
    response = cacheable(
        request, body, f'"{name[:32]}"', content_type, "public, max-age=31536000, immutable"
    )
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Content-Security-Policy"] = "default-src 'none'"
    return response
