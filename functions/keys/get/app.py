"""GET /api/v1/keys/{id}: one of the account's keys (never its secret)."""

from sitelens.accounts import keyring
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    return ok(keyring.get(request.account.id, request.record_id()))
