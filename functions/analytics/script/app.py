"""GET /js/{file}: the tracking script, `script.js`, and its variants with extensions,
`script.outbound-links.file-downloads.js` and so on (public).

Through API Gateway only this route arrives; through the function's own URL
(HitPath=FunctionUrl, no route: `resource` empty) any path and method do, answered as the
APIs answer them (404, 405 with Allow)."""

from sitelens.analytics import script
from sitelens.core import errors
from sitelens.edge import scripts
from sitelens.edge.http import Request, Response, api_handler

FOLDER = "/js/"
METHODS = ["GET"]


@api_handler(public=True)
def handler(request: Request) -> Response:
    if request.resource:
        file = request.path_params.get("file", "")
    elif request.path.startswith(FOLDER):
        file = request.path[len(FOLDER) :]  # a name with a "/" is no script: 404 below
    else:
        raise errors.NotFound()
    if request.method not in METHODS:
        raise errors.MethodNotAllowed(METHODS)
    found = script.find(file)
    if found is None:  # a file under /js/ that is no script
        raise errors.NotFound()
    return scripts.answer(request, found)
