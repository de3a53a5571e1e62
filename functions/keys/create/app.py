"""POST /api/v1/keys: a new key with its scopes; its secret is in this answer only."""

from sitelens.accounts import keyring
from sitelens.accounts.inputs import KeyCreate
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    fields = KeyCreate.parse(request.form())
    return ok(keyring.create(request.account.id, fields), status=201)
