"""DELETE /api/v1/keys/{id}: revoke a key at once (cached copies within seconds)."""

from sitelens.accounts import keyring
from sitelens.edge import auth
from sitelens.edge.http import Request, Response, api_handler, deleted
from sitelens.webhooks import events
from sitelens.webhooks.registry import KEY_REVOKED


@api_handler
def handler(request: Request) -> Response:
    key_id = request.record_id()
    keyring.revoke(request.account.id, key_id)
    auth.forget()  # this container stops trusting it now, others within the cache time
    events.emit(request.account.id, KEY_REVOKED, {"id": key_id})
    return deleted(key_id, "key")
