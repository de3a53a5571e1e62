"""HTML pages: templates rendered with Jinja2 (every value escaped), the files they load
(served by the same API, never from a CDN) and the headers every page carries."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

from sitelens.core import words
from sitelens.edge.http import Request, Response, cacheable

ASSETS = Path(__file__).with_name("assets")
HTML_TYPE = "text/html; charset=utf-8"
_ASSET_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
# Scripts and styles only from files of this API: no inline script can run, whatever a
# record's values hold; forms post only here; no page may frame these.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",  # a share link is not told to the sites it links to
    "Cache-Control": "private, no-store",  # pages may be behind a password
}


@cache
def _environment() -> Any:
    # Imported here: only the page routes load Jinja2.
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["counted"] = words.counted  # {{ n|counted("page") }}: "1 page"
    return environment


def page(
    request: Request,
    template: str,
    status: int = 200,
    headers: dict[str, str] | None = None,
    **context: Any,
) -> Response:
    """The template rendered as a page, with links to this API's assets."""
    html = (
        _environment()
        .get_template(template)
        .render(assets=f"{request.base_url}/share/assets", **context)
    )
    return Response(status, html, {**PAGE_HEADERS, **(headers or {})}, HTML_TYPE)


@cache
def _asset(name: str) -> tuple[str, str] | None:
    """(body, ETag) of an asset; None for a name that is not one."""
    path = ASSETS / name
    if path.suffix not in _ASSET_TYPES or path.parent != ASSETS or not path.is_file():
        return None
    body = path.read_text()
    return body, '"' + hashlib.sha256(body.encode()).hexdigest()[:32] + '"'


def asset(request: Request, name: str) -> Response | None:
    """A script or stylesheet the pages load, cacheable for a day; None when unknown."""
    found = _asset(name) if "/" not in name and not name.startswith(".") else None
    if found is None:
        return None
    body, etag = found
    content_type = _ASSET_TYPES[Path(name).suffix]
    response = cacheable(request, body, etag, content_type, "public, max-age=86400")
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
