"""What the share views of every record kind do: find the record within the client
address's limit, read a share token (a bearer token for programs, the page's cookie for
browsers) or a guest session (a guest link's token: as a bearer token, or the cookie its
link set), unlock with a password as JSON or as a page's form, and draw pages or their
errors."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from http.cookies import CookieError, SimpleCookie
from urllib.parse import urlencode, urlsplit

from sitelens import brands, sharing
from sitelens.core import errors
from sitelens.edge import pages
from sitelens.edge.http import Request, Response, ok
from sitelens.guests import sessions
from sitelens.sharing.inputs import Unlock

COOKIE = "sitelens_share"
GUEST_COOKIE = "sitelens_guest"  # a guest session, on every share page of its base URL
GUEST_PARAMETER = "guest"  # a guest link's token, on the page it opens first
MAX_GUEST_TOKEN = 400  # a guest token is about 120 characters; longer is no token of ours


@dataclass(frozen=True)
class Kind:
    """A kind of shared record, as its views need it."""

    find: Callable[[Request], sharing.Shared]  # the record the path names; 404 if none
    title: Callable[[sharing.Shared], str]  # of its page and password form
    render: Callable[[Request, sharing.Shared], Response]  # its page


def found(request: Request, kind: Kind) -> sharing.Shared:
    """The record the request names, once the client address is within its limit (429
    otherwise, checked first: a miss costs the client as much as a hit)."""
    sharing.limits.admit(request.source_ip)
    return kind.find(request)


def opened(request: Request, kind: Kind) -> sharing.Shared:
    """The record the request names, when the request may read it: 404, 401 or 429
    otherwise."""
    shared = found(request, kind)
    sharing.admit(shared, proof(request), guest(request))
    return shared


def unlock(request: Request, kind: Kind) -> Response:
    """POST .../unlock: a share token for the record's password."""
    shared = found(request, kind)
    fields = Unlock.parse(request.form())
    grant = sharing.unlock(shared, fields.password, request.source_ip)
    return ok({"token": grant.token, "expires_at": grant.expires_iso()})


def proof(request: Request) -> str | None:
    """The share token a request carries: as a bearer token (programs), else in the
    cookie a page's password form set (browsers send it only on that page's path)."""
    scheme, _, token = request.headers.get("authorization", "").strip().partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return _cookie(request, COOKIE)


def guest(request: Request) -> sharing.Guest | None:
    """The guest session the request carries, as a bearer token or its cookie; None for
    none, or one that no longer opens anything (revoked, expired, tampered with)."""
    scheme, _, token = request.headers.get("authorization", "").strip().partition(" ")
    bearer = token.strip() if scheme.lower() == "bearer" else None
    for carried in (bearer, _cookie(request, GUEST_COOKIE)):
        session = sessions.opened_by(carried) if carried and _token_sized(carried) else None
        if session is not None:
            return session
    return None


def brand_of(request: Request, shared: sharing.Shared) -> brands.Shown:
    """The brand a record's pages are drawn with: its project's (its site's), else its
    account's."""
    record = shared.record
    host = (
        record.get("project")
        or record.get("domain")
        or urlsplit(str(record.get("url") or "")).hostname
    )
    return brands.shown(shared.account, str(host) if host else None, request.base_url)


def _token_sized(text: str) -> bool:
    return 0 < len(text) <= MAX_GUEST_TOKEN


def _cookie(request: Request, name: str) -> str | None:
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(request.headers.get("cookie", ""))
    except CookieError:
        return None
    return jar[name].value if name in jar else None


def asset(request: Request) -> Response:
    """GET /share/assets/{name}: the pages' scripts and stylesheets (no limit: static,
    cached by browsers for a day)."""
    served = pages.asset(request, request.path_params.get("name", ""))
    if served is None:
        raise errors.NotFound()
    return served


# -- pages ---------------------------------------------------------------------------------


def page(request: Request, kind: Kind) -> Response:
    """GET and POST of a record's page: the page, or its password form (POST: its
    answer); every error as a page."""
    try:
        shared = found(request, kind)
        if request.method == "GET" and GUEST_PARAMETER in request.query:
            landed = _guest_landing(request, shared)
            if landed is not None:
                return landed
            request = replace(request, query=_without_token(request))
        if request.method == "POST":
            return _unlock_form(request, kind, shared)
        try:
            sharing.admit(shared, proof(request), guest(request))
        except errors.Unauthenticated:
            return _password_page(request, kind, shared, status=401)
        return kind.render(request, shared)
    except errors.ApiError as err:
        message = _sentence(err)
        return pages.page(
            request, "error.html", err.status, dict(err.headers), title=message, message=message
        )


def _sentence(err: errors.ApiError) -> str:
    if isinstance(err.message, dict):  # a 422's fields and sentences
        return " ".join(" ".join(sentences) for sentences in err.message.values())
    return str(err.message)


def _unlock_form(request: Request, kind: Kind, shared: sharing.Shared) -> Response:
    """The page's password form: a right password sets the record's cookie and shows the
    page again (303, so reloading does not post again); a wrong one shows the form again."""
    try:
        fields = Unlock.parse(request.form())
        grant = sharing.unlock(shared, fields.password, request.source_ip)
    except errors.Invalid:
        return _password_page(request, kind, shared, 401, "Enter the password.")
    except errors.Unauthenticated:
        return _password_page(request, kind, shared, 401, "That password is not right.")
    except errors.TooManyRequests as err:
        message = "Too many attempts. Try again in a few minutes."
        return _password_page(request, kind, shared, 429, message, dict(err.headers))
    cookie = (
        f"{COOKIE}={grant.token}; Path={_page_path(request)}; "
        f"Max-Age={sharing.TOKEN_SECONDS}; {_cookie_flags(request)}"
    )
    location = f"{request.base_url}{request.path}"
    if request.query:
        location += "?" + urlencode(request.query)
    return Response(303, "", {"Location": location, "Set-Cookie": cookie, **pages.PAGE_HEADERS})


def _without_token(request: Request) -> dict[str, str]:
    return {k: v for k, v in request.query.items() if k != GUEST_PARAMETER}


def _guest_landing(request: Request, shared: sharing.Shared) -> Response | None:
    """A guest link opened: a token that opens this record sets the guest cookie for every
    share page of this base URL and shows the page again without the token in its address
    (303). None for any other token: the page answers as it would without one."""
    token = request.query[GUEST_PARAMETER]
    session = sessions.opened_by(token) if _token_sized(token) else None
    if session is None or not session.reaches(shared):
        return None
    rest = _without_token(request)
    base_path = urlsplit(request.base_url).path.rstrip("/")
    lasts = max(int(session.expires_at - time.time()), 1) if session.expires_at else None
    cookie = f"{GUEST_COOKIE}={token}; Path={base_path}/share; {_cookie_flags(request)}"
    if lasts is not None:
        cookie += f"; Max-Age={lasts}"
    location = f"{request.base_url}{request.path}"
    if rest:
        location += "?" + urlencode(rest)
    return Response(303, "", {"Location": location, "Set-Cookie": cookie, **pages.PAGE_HEADERS})


def _cookie_flags(request: Request) -> str:
    """A share cookie's attributes: `Secure` on https (every deployed base URL); not on
    `make serve`'s plain http, where clients other than browsers (urllib's and curl's
    cookie jars) keep a Secure cookie but never send it back."""
    secure = "" if request.base_url.startswith("http://") else " Secure;"
    return f"HttpOnly;{secure} SameSite=Lax"


def _page_path(request: Request) -> str:
    """The page's path as the browser sees it (behind a stage, say): the cookie's scope."""
    return urlsplit(request.base_url).path.rstrip("/") + request.path


def _password_page(
    request: Request,
    kind: Kind,
    shared: sharing.Shared,
    status: int,
    problem: str | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    return pages.page(
        request,
        "password.html",
        status,
        headers,
        brand=brand_of(request, shared),
        title=kind.title(shared),
        action=f"{request.base_url}{request.path}",
        problem=problem,
    )
