"""GET, POST /api/v1/members, GET, PATCH, DELETE /api/v1/members/{member}, GET
/api/v1/members/invitations and DELETE /api/v1/members/invitations/{invitation}: an
account's members and their roles; a POST mails an invitation (accepted at
/api/v1/members/accept), pending ones are listed and withdrawn."""

from sitelens.accounts import invitations, members
from sitelens.accounts.inputs import MemberInvite, MemberUpdate
from sitelens.edge import auth
from sitelens.edge.http import Request, Response, api_handler, deleted, listed, ok
from sitelens.records.inputs import PageQuery

INVITATIONS = "/api/v1/members/invitations"


@api_handler
def handler(request: Request) -> Response:
    account, grant = request.account, request.grant
    if request.resource.startswith(INVITATIONS):
        if request.method == "GET":
            return listed(request, invitations.list_page(account, PageQuery.parse(request.query)))
        invitation_id = request.record_id("invitation")
        invitations.cancel(account, grant, invitation_id)
        return deleted(invitation_id, "invitation")
    if "member" not in request.path_params:
        if request.method == "POST":
            fields = MemberInvite.parse(request.form())
            shown, new = invitations.invite(account, grant, fields, request.base_url)
            return ok(shown, 201 if new else 200)
        query = PageQuery.parse({"sort": "asc", **request.query})
        return listed(request, members.list_page(account, query))
    member_id = request.record_id("member")
    if request.method == "GET":
        return ok(members.get(account, member_id))
    try:
        if request.method == "PATCH":
            fields = MemberUpdate.parse(request.form())
            return ok(members.update(account, grant, member_id, fields.role))
        members.remove(account, grant, member_id)
        return deleted(member_id, "member")
    finally:  # this container holds its keys to the new role now, others within the cache time
        auth.forget()
