"""GET /js/{file}: the tracking script, `script.js`, and its variants with extensions,
`script.outbound-links.file-downloads.js` and so on (public)."""

from sitelens.analytics import script
from sitelens.core import errors
from sitelens.edge import scripts
from sitelens.edge.http import Request, Response, api_handler


@api_handler(public=True)
def handler(request: Request) -> Response:
    found = script.find(request.path_params.get("file", ""))
    if found is None:  # a file under /js/ that is no script
        raise errors.NotFound()
    return scripts.answer(request, found)
