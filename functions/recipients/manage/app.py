"""GET and POST /api/v1/websites/{id}/recipients (and /api/v1/audits/{id}/recipients),
DELETE .../recipients/{recipient}: the client addresses a website's or an audit's digest
goes to; a new one is mailed a confirmation link and gets nothing until it follows it."""

from sitelens import recipients
from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.recipients.inputs import RecipientAdd


@api_handler
def handler(request: Request) -> Response:
    kind = "audit" if request.resource.startswith("/api/v1/audits/") else "website"
    target = recipients.Target(request.account.id, kind, request.record_id())
    if request.method == "POST":
        fields = RecipientAdd.parse(request.form())
        shown, new = recipients.add(target, fields.email, request.base_url, fields.segment)
        return ok(shown, 201 if new else 200)
    if request.method == "DELETE":
        recipient = request.path_params.get("recipient", "")
        recipients.remove(target, recipient)
        return Response(
            200, {"id": recipient, "object": "recipient", "deleted": True, "status": 200}
        )
    return ok(recipients.listing(target))
