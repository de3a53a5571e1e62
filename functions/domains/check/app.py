"""POST /api/v1/domains/verification/check: look for the account's proof that it owns a
domain; when found, its website for the domain, verified (created, 201, when it had none)."""

from sitelens.domains import claims
from sitelens.domains.inputs import DomainCheck
from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.webhooks import events
from sitelens.webhooks.registry import WEBSITE_CREATED


@api_handler
def handler(request: Request) -> Response:
    fields = DomainCheck.parse(request.form())
    record, created = claims.check(request.account.id, fields)
    if created:
        events.emit(request.account.id, WEBSITE_CREATED, record, website=record["id"])
    return ok(record, status=201 if created else 200)
