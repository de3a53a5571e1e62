"""The share views, read without an API key as each record's privacy allows (the rules are
`sitelens.sharing`'s): JSON for programs, with a bearer token from the unlock route, and
pages for people, with a cookie the page's password form sets."""

from __future__ import annotations

from collections.abc import Callable
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import urlencode, urlsplit

from sitelens import errors, sharing
from sitelens.analytics import stats
from sitelens.analytics.inputs import PERIODS, SharePeriod, StatsQuery
from sitelens.edge import pages
from sitelens.edge.http import Request, Response, listed, ok
from sitelens.reports import records as report_records
from sitelens.sharing.inputs import Unlock

COOKIE = "sitelens_share"
CATEGORY_NAMES = {
    "seo": "Search engines",
    "performance": "Performance",
    "security": "Security",
    "miscellaneous": "Miscellaneous",
}
RANKED_TITLES = {
    "page": "Pages",
    "landing_page": "Landing pages",
    "referrer": "Referrers",
    "country": "Countries",
    "browser": "Browsers",
    "os": "Operating systems",
    "device": "Devices",
    "language": "Languages",
    "resolution": "Screen sizes",
    "utm_source": "Campaign sources",
    "utm_medium": "Campaign media",
    "campaign": "Campaigns",
    "event": "Events",
}


# -- JSON ----------------------------------------------------------------------------------


def website_stats(request: Request) -> Response:
    """GET /api/v1/share/websites/{domain}/stats: as `GET /api/v1/stats/{id}`."""
    shared = sharing.website(request.path_params.get("domain", ""))
    sharing.admit(shared, _proof(request))
    query = StatsQuery.parse(request.query)
    return listed(request, stats.page(shared.account, shared.id, query))


def report(request: Request) -> Response:
    """GET /api/v1/share/reports/{id}: the report as its owner reads it."""
    shared = sharing.report(request.record_id())
    sharing.admit(shared, _proof(request))
    return ok(report_records.show(shared.record))


def website_unlock(request: Request) -> Response:
    """POST /api/v1/share/websites/{domain}/unlock."""
    return _unlocked(request, sharing.website(request.path_params.get("domain", "")))


def report_unlock(request: Request) -> Response:
    """POST /api/v1/share/reports/{id}/unlock."""
    return _unlocked(request, sharing.report(request.record_id()))


def _unlocked(request: Request, shared: sharing.Shared) -> Response:
    fields = Unlock.parse(request.form())
    grant = sharing.unlock(shared, fields.password, request.source_ip)
    return ok({"token": grant.token, "expires_at": grant.expires_iso()})


def _proof(request: Request) -> str | None:
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


# -- pages ---------------------------------------------------------------------------------


def website_page(request: Request) -> Response:
    """GET and POST /share/{domain}: the statistics page, or its password form."""
    return _page(request, lambda: sharing.website(request.path_params.get("domain", "")), _website)


def report_page(request: Request) -> Response:
    """GET and POST /share/reports/{id}: the report page, or its password form."""
    return _page(request, lambda: sharing.report(request.record_id()), _report)


def asset(request: Request) -> Response:
    """GET /share/assets/{name}: the pages' scripts and stylesheets."""
    found = pages.asset(request, request.path_params.get("name", ""))
    if found is None:
        raise errors.NotFound()
    return found


Render = Callable[[Request, sharing.Shared], Response]


def _page(request: Request, find: Callable[[], sharing.Shared], render: Render) -> Response:
    """The page of the record `find` gives, drawn by `render`; or its password form; or the
    error, as a page."""
    try:
        shared: sharing.Shared = find()
        if request.method == "POST":
            return _unlock_form(request, shared)
        if shared.locked and not _proves(request, shared):
            return _password_page(request, shared, status=401)
        return render(request, shared)
    except errors.ApiError as err:
        message = _sentence(err)
        return pages.page(
            request, "error.html", err.status, dict(err.headers), title=message, message=message
        )


def _sentence(err: errors.ApiError) -> str:
    if isinstance(err.message, dict):  # a 422's fields and sentences
        return " ".join(" ".join(sentences) for sentences in err.message.values())
    return str(err.message)


def _unlock_form(request: Request, shared: sharing.Shared) -> Response:
    """The page's password form: a right password sets the record's cookie and shows the
    page again (303, so reloading does not post again); a wrong one shows the form again."""
    try:
        fields = Unlock.parse(request.form())
        grant = sharing.unlock(shared, fields.password, request.source_ip)
    except errors.Invalid:
        return _password_page(request, shared, 401, "Enter the password.")
    except errors.Unauthenticated:
        return _password_page(request, shared, 401, "That password is not right.")
    except errors.TooManyRequests as err:
        message = "Too many attempts. Try again in a few minutes."
        return _password_page(request, shared, 429, message, dict(err.headers))
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
        sharing.admit(shared, _proof(request))
    except errors.Unauthenticated:
        return False
    return True


def _password_page(
    request: Request,
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
        title=_title(shared),
        action=f"{request.base_url}{request.path}",
        problem=problem,
    )


def _title(shared: sharing.Shared) -> str:
    if shared.kind == "website":
        return f"{shared.record['domain']} statistics"
    return f"SEO report of {shared.record['url']}"


def _website(request: Request, shared: sharing.Shared) -> Response:
    period = SharePeriod.parse(request.query)
    first, last = period.days()
    overview = stats.overview(shared.id, first, last)
    return pages.page(
        request,
        "website.html",
        title=_title(shared),
        domain=shared.record["domain"],
        period=period,
        periods=PERIODS,
        first=first.isoformat(),
        last=last.isoformat(),
        overview=overview,
        ranked_titles=RANKED_TITLES,
        series={
            "days": overview.days,
            "visitors": overview.visitors,
            "pageviews": overview.pageviews,
        },
    )


def _report(request: Request, shared: sharing.Shared) -> Response:
    record = report_records.show(shared.record)
    categories: dict[str, list[dict[str, Any]]] = {name: [] for name in CATEGORY_NAMES}
    for key, result in record["results"].items():
        entry = {"key": key, "name": key.replace("_", " ").capitalize(), **result}
        categories.setdefault(result["category"], []).append(entry)
    return pages.page(
        request,
        "report.html",
        title=_title(shared),
        report=record,
        categories=[
            (CATEGORY_NAMES.get(name, name.capitalize()), checks)
            for name, checks in categories.items()
            if checks
        ],
    )
