"""POST /api/v1/keys: a new key with its scopes; its secret is in this answer only."""

from sitelens.accounts import keyring
from sitelens.accounts.inputs import KeyCreate
from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.webhooks import events
from sitelens.webhooks.registry import KEY_CREATED


@api_handler
def handler(request: Request) -> Response:
    fields = KeyCreate.parse(request.form())
    grant = request.grant  # a key made in a workspace is the workspace's, not a member's
    created = keyring.create(request.account.id, fields, None if grant.via else grant.member)
    shown = {k: v for k, v in created.items() if k != "key"}  # never the secret
    events.emit(request.account.id, KEY_CREATED, shown)
    return ok(created, status=201)
