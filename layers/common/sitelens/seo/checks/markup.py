"""Checks of the page's markup: structured data (present; valid, `rich_results`), the
mobile viewport, the charset, the favicon, inline styles and obsolete tags."""

from __future__ import annotations

from sitelens.seo import structured_data as schema_data
from sitelens.seo import text
from sitelens.seo.checks.context import (
    _DEPRECATED_TAGS,
    Context,
    _attr,
    _distinct,
    _meta_charset,
    _meta_key,
)
from sitelens.seo.checks.outcome import Errors, Outcome, verdict


def structured_data(ctx: Context) -> Outcome:
    """Open Graph, Twitter card or JSON-LD data. Value: which of them the page has."""
    keys = [_meta_key(node) for node in ctx.tags("meta")]
    types = [_attr(node, "type").lower() for node in ctx.tags("script")]
    present = {
        "open_graph": any(key.startswith("og:") for key in keys),
        "twitter_card": any(key.startswith("twitter:") for key in keys),
        "json_ld": "application/ld+json" in types,
    }
    found = [name for name, yes in present.items() if yes]
    errors = {} if found else {"missing": "No Open Graph, Twitter card or JSON-LD data."}
    return verdict(found, errors)


def rich_results(ctx: Context) -> Outcome:
    """The page's JSON-LD, Microdata and RDFa items are schema.org types with schema.org
    properties, and have the properties Google's rich results require
    (`structured_data.validate`). Value: the items' types, and every error and warning
    (missing recommended properties, which do not fail the check) as a sentence."""
    if not schema_data.has_markup(ctx.tree):
        return verdict({"types": [], "errors": [], "warnings": []}, {})
    found = schema_data.validate(ctx.html, ctx.url)
    errors: Errors = {}
    for finding in found.errors:
        key = ".".join(part for part in (finding.type, finding.property) if part)
        n = 2
        while key in errors:
            key, n = f"{key.rsplit('#', 1)[0]}#{n}", n + 1
        errors[key] = finding.message
    value = {
        "types": found.types,
        "errors": [f.message for f in found.errors],
        "warnings": [f.message for f in found.warnings],
    }
    return verdict(value, errors)


def meta_viewport(ctx: Context) -> Outcome:
    """A `<meta name=viewport>` with a valid `width` (device-width, or 1 to 10,000 px) or
    `initial-scale` (0.1 to 10), as Lighthouse's viewport audit parses it. Value: its
    content."""
    nodes = ctx.meta("viewport")
    content = _attr(nodes[0], "content") if nodes else None
    errors: Errors = {}
    if content is None:
        errors["missing"] = 'The page has no <meta name="viewport">.'
    else:
        properties = text.viewport(content)
        width_ok = text.valid_width(properties.get("width", ""))
        scale_ok = text.valid_scale(properties.get("initial-scale", ""))
        if not width_ok and not scale_ok:
            errors["invalid"] = "The viewport sets no valid width nor initial-scale."
    return verdict(content, errors)


def charset(ctx: Context) -> Outcome:
    """A charset declared in Content-Type or a `<meta>`. Value: the declared charset."""
    declared = ctx.header_charset or next(
        (found for node in ctx.tags("meta") if (found := _meta_charset(node))), None
    )
    errors = {} if declared else {"missing": "No charset in Content-Type or a <meta>."}
    return verdict(declared or None, errors)


def favicon(ctx: Context) -> Outcome:
    """A `<link rel="icon">` (or "shortcut icon") with an href. Value: its URL."""
    hrefs = [_attr(node, "href") for node in ctx.link_rel("icon")]
    url = next((ctx.resolve(href) for href in hrefs if href), None)
    errors = {} if url else {"missing": 'The page declares no <link rel="icon">.'}
    return verdict(url, errors)


def inline_css(ctx: Context) -> Outcome:
    """No `style=` attributes. Value: the tags that carry one."""
    styled = [node.tag or "" for node in ctx.css("[style]:not([style=''])")]
    errors: Errors = {}
    if styled:
        errors["inline"] = f"Elements with a style attribute: {len(styled)}."
    return verdict(_distinct(styled), errors)


def deprecated_html_tags(ctx: Context) -> Outcome:
    """No obsolete tags such as `<font>`, `<center>` or `<marquee>`. Value: those used."""
    used = [tag for tag in _DEPRECATED_TAGS if ctx.tags(tag)]
    errors = {"deprecated": "Obsolete tags: " + ", ".join(used)} if used else {}
    return verdict(used, errors)
