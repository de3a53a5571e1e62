"""Any route or method no operation answers: 405 with Allow on a known path, else 404."""

from sitelens.core import errors
from sitelens.edge import routes
from sitelens.edge.http import Request, Response, api_handler


@api_handler(public=True)
def handler(request: Request) -> Response:
    allowed = routes.allowed_methods(request.resource)
    if allowed and request.method not in allowed:
        raise errors.MethodNotAllowed(allowed)
    raise errors.NotFound()
