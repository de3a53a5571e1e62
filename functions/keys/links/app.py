"""Guest links of a read key (docs/guests.md): `POST /api/v1/keys/{id}/links` makes one (its
URL and token shown once), `GET` lists the key's live links, `DELETE .../{link_id}` revokes
one at once."""

from sitelens.edge.http import Request, Response, api_handler, deleted, listed, ok
from sitelens.guests import links
from sitelens.guests.inputs import LinkCreate
from sitelens.records.inputs import PageQuery


def create(request: Request) -> Response:
    fields = LinkCreate.parse(request.form())
    bases = links.share_bases(request.base_url)
    return ok(links.create(request.account.id, request.record_id(), fields, bases), status=201)


def list_links(request: Request) -> Response:
    query = PageQuery.parse(request.query)
    return listed(request, links.list_page(request.account.id, request.record_id(), query))


def revoke(request: Request) -> Response:
    link_id = request.record_id("link_id")
    links.revoke(request.account.id, request.record_id(), link_id)
    return deleted(link_id, "guest_link")


ROUTES = {
    ("POST", "/api/v1/keys/{id}/links"): create,
    ("GET", "/api/v1/keys/{id}/links"): list_links,
    ("DELETE", "/api/v1/keys/{id}/links/{link_id}"): revoke,
}


@api_handler
def handler(request: Request) -> Response:
    return ROUTES[request.method, request.resource](request)
