"""HTML pages: templates rendered with Jinja2 (every value escaped), the files they load
(served by the same API, never from a CDN) and the headers every page carries."""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from pathlib import Path
from typing import Any

from sitelens.brands import Shown
from sitelens.brands.records import MADE_WITH
from sitelens.core import words
from sitelens.edge.http import Request, Response, cacheable

ASSETS = Path(__file__).with_name("assets")
HTML_TYPE = "text/html; charset=utf-8"
_ASSET_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
# Scripts and styles only from files of this API: no inline script can run, whatever a
# record's values hold (a brand's accent is the one inline style, allowed by its hash);
# forms post only here; no page may frame these but a brand's listed origins.
_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'{styles}; img-src 'self' data:; "
    "form-action 'self'; frame-ancestors {ancestors}; base-uri 'none'"
)
CONTENT_SECURITY_POLICY = _POLICY.format(styles="", ancestors="'none'")
UNBRANDED = Shown("Sitelens", None, None, None, made_with=True, custom=False)
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
    brand: Shown | None = None,
    **context: Any,
) -> Response:
    """The template rendered as a page, with links to this API's assets, drawn with
    `brand` (Sitelens's own look without one)."""
    drawn = brand or UNBRANDED
    accent = f":root{{--accent:{drawn.accent}}}" if drawn.accent else None
    html = (
        _environment()
        .get_template(template)
        .render(
            assets=f"{request.base_url}/share/assets",
            brand=drawn,
            accent_style=accent,
            made_with=MADE_WITH,
            **context,
        )
    )
    return Response(status, html, {**branded_headers(drawn, accent), **(headers or {})}, HTML_TYPE)


def branded_headers(brand: Shown, accent_style: str | None) -> dict[str, str]:
    """A page's headers: its accent's inline style allowed by its hash, and its brand's
    listed origins (only those) allowed to frame it, without X-Frame-Options then (which
    cannot name origins, and DENY would win over the policy in older browsers)."""
    if accent_style is None and not brand.frame_ancestors:
        return PAGE_HEADERS
    styles = ""
    if accent_style is not None:
        digest = base64.b64encode(hashlib.sha256(accent_style.encode()).digest()).decode()
        styles = f" 'sha256-{digest}'"
    ancestors = " ".join(brand.frame_ancestors) or "'none'"
    headers = {
        **PAGE_HEADERS,
        "Content-Security-Policy": _POLICY.format(styles=styles, ancestors=ancestors),
    }
    if brand.frame_ancestors:
        del headers["X-Frame-Options"]
    return headers


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
