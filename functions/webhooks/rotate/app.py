"""POST /api/v1/webhooks/{id}/rotate: a new signing secret, shown once; the old one signs
beside it for `overlap` seconds."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.webhooks import endpoints
from sitelens.webhooks.inputs import SecretRotate


@api_handler
def handler(request: Request) -> Response:
    endpoint_id = request.record_id()
    fields = SecretRotate.parse(request.form())
    return ok(endpoints.rotate_secret(request.account.id, endpoint_id, fields))
