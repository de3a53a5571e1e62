"""GET and POST /api/v1/recipients/confirm?token=... and /api/v1/recipients/unsubscribe?token=...
(no key; the links mailed to a client recipient). Mail scanners fetch links, so a GET only
shows what the link would do and a form that POSTs to the same URL; a POST does it (the
unsubscribe link's is RFC 8058's one-click too) and answers JSON, or a page to a browser."""

from sitelens import recipients
from sitelens.core import errors
from sitelens.edge import pages
from sitelens.edge.http import Request, Response, api_handler, ok, url_with
from sitelens.recipients.links import INVALID

# per link: what a GET asks, what a POST did, the JSON answer's field, the operations
LINKS = {
    "confirm": (
        ("Confirm?", "Send these reports to {}?"),
        ("Confirmed", "{} will receive these reports."),
        "confirmed",
        (recipients.to_confirm, recipients.confirm),
    ),
    "unsubscribe": (
        ("Unsubscribe?", "Stop sending these reports to {}?"),
        ("Unsubscribed", "{} will not receive these reports any more."),
        "unsubscribed",
        (recipients.to_unsubscribe, recipients.unsubscribe),
    ),
}


@api_handler(public=True)
def handler(request: Request) -> Response:
    asks, did, field, (ask, act) = LINKS[request.resource.rsplit("/", 1)[1]]
    token = request.query.get("token", "")
    if request.method == "POST" and "text/html" not in request.headers.get("accept", ""):
        return ok({field: act(token)})
    asking = request.method == "GET"
    title, sentence = asks if asking else did
    try:
        address = ask(token) if asking else act(token)
    except errors.ApiError as err:
        return pages.page(
            request,
            "recipient.html",
            err.status,
            title="Link not valid",
            sentence=INVALID,
            action=None,
        )
    if address is None:
        sentence, action = "This address is no longer a recipient.", None
        return pages.page(
            request, "recipient.html", title="Nothing to do", sentence=sentence, action=action
        )
    action = url_with(f"{request.base_url}{request.path}", {"token": token}) if asking else None
    return pages.page(
        request, "recipient.html", title=title, sentence=sentence.format(address), action=action
    )
