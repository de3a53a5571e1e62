"""GET /api/v1/keys: the account's keys (never their secrets), newest first."""

from sitelens.accounts import keyring
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    return ok(keyring.list_all(request.account.id))
