"""Checks of what the page exposes: HTTPS, mixed content, server versions, links that hand
over this window, email addresses."""

from __future__ import annotations

import re
from urllib.parse import unquote

from sitelens.seo.checks.context import Context, _attr, _distinct, _origin
from sitelens.seo.checks.outcome import Errors, Outcome, verdict


def https_encryption(ctx: Context) -> Outcome:
    """The page is served over HTTPS. Value: the scheme."""
    errors = {} if ctx.scheme == "https" else {"insecure": "The page is not served over HTTPS."}
    return verdict(ctx.scheme or None, errors)


def mixed_content(ctx: Context) -> Outcome:
    """An HTTPS page loads nothing over plain HTTP. Value: the http:// resources."""
    insecure = []
    if ctx.scheme == "https":
        insecure = [
            url for urls in ctx.resources.values() for url in urls if url[:5].lower() == "http:"
        ]
    errors: Errors = {}
    if insecure:
        errors["insecure"] = f"Resources loaded over plain HTTP: {len(insecure)}."
    return verdict(_distinct(insecure), errors)


# a dotted version ("nginx/1.18.0", "PHP 8.1") or a number after a slash ("Apache/2")
_VERSION = re.compile(r"\bv?\d+(?:\.\d+)+\b|/\s*v?\d+\b")
_SIGNATURE_HEADERS = ("server", "x-powered-by")


def server_signature(ctx: Context) -> Outcome:
    """`Server` and `X-Powered-By` reveal no version number. Value: those headers."""
    found = {name: ctx.headers[name] for name in _SIGNATURE_HEADERS if name in ctx.headers}
    errors = {
        name: f"The {name} header reveals a version: {value}"
        for name, value in found.items()
        if _VERSION.search(value)
    }
    return verdict(found, errors)


def unsafe_cross_origin_links(ctx: Context) -> Outcome:
    """No link opens another site in a new tab with `rel=opener`. Value: such link URLs.

    Browsers have given `target=_blank` links `noopener` by default since 2021 (Chrome 88,
    Firefox 79, Safari 12.1), and Lighthouse dropped its audit: the risk that remains is a
    link that asks for the opener back with `rel="opener"`.
    """
    own = _origin(ctx.url)
    unsafe = []
    for node in ctx.css("a[href][target=_blank i], area[href][target=_blank i]"):
        if "opener" not in node.attrs.sget("rel").lower().split():
            continue
        url = ctx.resolve(_attr(node, "href"))
        origin = _origin(url) if url else None
        if url and origin is not None and origin != own:
            unsafe.append(url)
    errors: Errors = {}
    if unsafe:
        errors["unsafe"] = (
            f'Links that give another site this page\'s window (rel="opener"): {len(unsafe)}.'
        )
    return verdict(_distinct(unsafe), errors)


# starts where a run of address characters starts: trying every position inside a long run
# without an "@" would take quadratic time
_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
)


def plaintext_email(ctx: Context) -> Outcome:
    """No email address in the visible text or in `mailto:` links. Value: the addresses."""
    found = _EMAIL.findall(ctx.text) if "@" in ctx.text else []
    for link in ctx.links:
        if link.href[:7].lower() == "mailto:":
            address = unquote(link.href[7:].split("?", 1)[0]).strip()
            if address:
                found.append(address)
    errors: Errors = {}
    if found:
        errors["exposed"] = f"Email addresses readable by spam bots: {len(set(found))}."
    return verdict(_distinct(found), errors)
