"""What the share views of every record kind do: find the record within the client
address's limit, read a share token (a bearer token for programs, the page's cookie for
browsers), unlock with a password as JSON or as a page's form, and draw pages or their
errors."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from urllib.parse import urlencode, urlsplit

from sitelens import sharing
from sitelens.core import errors
from sitelens.edge import pages
from sitelens.edge.http import Request, Response, ok
from sitelens.sharing.inputs import Unlock

COOKIE = "sitelens_share"


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
    sharing.admit(shared, proof(request))
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
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(request.headers.get("cookie", ""))
    except CookieError:
        return None
    return jar[COOKIE].value if COOKIE in jar else None


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
        if request.method == "POST":
            return _unlock_form(request, kind, shared)
        if shared.locked and not _proves(request, shared):
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
        f"Max-Age={sharing.TOKEN_SECONDS}; HttpOnly; Secure; SameSite=Lax"
    )
    location = f"{request.base_url}{request.path}"
    if request.query:
        location += "?" + urlencode(request.query)
    return Response(303, "", {"Location": location, "Set-Cookie": cookie, **pages.PAGE_HEADERS})


def _page_path(request: Request) -> str:
    """The page's path as the browser sees it (behind a stage, say): the cookie's scope."""
    return urlsplit(request.base_url).path.rstrip("/") + request.path


def _proves(request: Request, shared: sharing.Shared) -> bool:
    try:
        sharing.admit(shared, proof(request))
    except errors.Unauthenticated:
        return False
    return True


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
        title=kind.title(shared),
        action=f"{request.base_url}{request.path}",
        problem=problem,
    )
