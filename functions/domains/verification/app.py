"""POST /api/v1/domains/verification: the account's token for proving it owns a domain,
and the three ways to publish it."""

from sitelens.domains import claims
from sitelens.domains.inputs import DomainVerification
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    fields = DomainVerification.parse(request.form())
    return ok(claims.instructions(request.account.id, fields.domain))
