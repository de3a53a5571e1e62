"""POST /api/v1/keys/{id}/rotate: a new secret for the key, shown once; the old one works
for `overlap` seconds more."""

from sitelens.accounts import keyring
from sitelens.accounts.inputs import KeyRotate
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    key_id = request.record_id()
    fields = KeyRotate.parse(request.form())
    return ok(keyring.rotate(request.account.id, key_id, fields))
