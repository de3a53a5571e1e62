"""GET /api/v1/webhooks: the account's webhook endpoints (never their secrets)."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.webhooks import endpoints


@api_handler
def handler(request: Request) -> Response:
    return ok(endpoints.list_all(request.account.id))
