"""GET /api/v1/account: the account the key belongs to."""

from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    return ok(request.account.public())
