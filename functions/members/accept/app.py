"""GET and POST /api/v1/members/accept?token=... (no key: the invitation's signed link).
Mail scanners fetch links, so a GET only shows the invitation; a POST accepts it and answers
the new member with its first key, shown this once."""

from sitelens.accounts import invitations
from sitelens.accounts.inputs import InvitationToken
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler(public=True)
def handler(request: Request) -> Response:
    sent = request.form() if request.method == "POST" else {}
    token = InvitationToken.parse({**request.query, **sent}).token
    if request.method == "POST":
        return ok(invitations.accept(token), 201)
    return ok(invitations.to_accept(token))
