"""GET /api/v1/keys: the account's keys (never their secrets), newest first, by pages."""

from sitelens.accounts import keyring
from sitelens.edge.http import Request, Response, api_handler, listed
from sitelens.records.inputs import PageQuery


@api_handler
def handler(request: Request) -> Response:
    query = PageQuery.parse(request.query)
    return listed(request, keyring.list_page(request.account.id, query))
