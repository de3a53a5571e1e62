"""Checks that search engines can crawl and index the page: its status and URL, robots.txt,
robots directives, canonical and alternate URLs, the sitemap (Lighthouse's crawling and
indexing)."""

from __future__ import annotations

import re
from urllib.parse import unquote

from sitelens.core import hosts
from sitelens.seo import indexing, links, robots
from sitelens.seo.checks.context import Context, _attr, _distinct
from sitelens.seo.checks.outcome import Errors, Outcome, verdict

MAX_URL_LENGTH = 100  # characters of path and query
MAX_QUERY_PARAMETERS = 2


def http_status_code(ctx: Context) -> Outcome:
    """The page answers 2xx. Value: the status."""
    status = ctx.page.status
    errors = {} if 200 <= status < 300 else {"status": f"The page answers {status}."}
    return verdict(status, errors)


_URL_SEGMENT = re.compile(r"[^\W_]+(?:[-.][^\W_]+)*")


def seo_friendly_url(ctx: Context) -> Outcome:
    """The page URL is short and readable. Value: the URL.

    Rules, on the percent-decoded path: no upper-case letters, no underscores, no
    spaces (or `+`); every path segment is words of letters and digits joined by
    single hyphens (a dot is allowed, for a file extension; an empty segment only as a
    trailing slash); at most two query parameters; path and query at most 100
    characters together.
    """
    parts = hosts.split_url(ctx.url)
    if parts is None:
        return verdict(ctx.url, {"invalid": "The URL cannot be parsed."})
    path = unquote(parts.path)
    errors: Errors = {}
    if any(char.isupper() for char in path):
        errors["uppercase"] = "The path has upper-case letters."
    if "_" in path:
        errors["underscores"] = "The path uses underscores; separate words with hyphens."
    if "+" in path or any(char.isspace() for char in path):
        errors["spaces"] = "The path has spaces; separate words with hyphens."
    segments = path.strip("/").split("/") if path.strip("/") else []
    if not errors and not all(_URL_SEGMENT.fullmatch(segment) for segment in segments):
        errors["characters"] = "Path segments should be words joined by hyphens."
    if len([pair for pair in parts.query.split("&") if pair]) > MAX_QUERY_PARAMETERS:
        errors["query"] = f"The URL has more than {MAX_QUERY_PARAMETERS} query parameters."
    length = len(parts.path) + len(parts.query)
    if length > MAX_URL_LENGTH:
        errors["too_long"] = f"Path and query have {length} characters; keep to {MAX_URL_LENGTH}."
    return verdict(ctx.url, errors)


def missing_page(ctx: Context) -> Outcome:
    """A path that does not exist answers 404. Value: the status it answered."""
    status = ctx.site.missing_page_status
    errors: Errors = {}
    if status is None:
        errors["unchecked"] = "A missing page could not be requested."
    elif status != 404:
        errors["status"] = f"A missing page answers {status}, not 404."
    return verdict(status, errors)


def robots_allow(ctx: Context) -> Outcome:
    """robots.txt lets search engines crawl the page. Value: crawler -> allowed.

    The crawlers are `robots.AGENTS` (any crawler, Googlebot, Bingbot, DuckDuckBot, the
    Internet Archive's). As Lighthouse's is-crawlable audit, the check fails only when
    every one of them is kept out; the value shows any that are. No robots.txt (4xx) allows
    everything; a 5xx or 429 answer, or none at all, means "disallow all" (Google).
    """
    found = robots.access(ctx.site, ctx.url)
    errors: Errors = {}
    if not any(found.allowed.values()):
        if found.reason == "unavailable":
            answered = f"answers {found.status}" if found.status else "cannot be fetched"
            errors["unavailable"] = f"robots.txt {answered}: search engines stay away."
        else:
            errors["disallowed"] = "robots.txt disallows this page for every search engine."
    return verdict(found.allowed, errors)


def robots_txt(ctx: Context) -> Outcome:
    """robots.txt is valid, as Lighthouse's robots-txt audit checks. Value: the invalid
    lines ("line N: message: content").

    Passes without a robots.txt (4xx); fails when it answers 5xx or 429 or cannot be fetched.
    """
    response = ctx.site.robots_txt
    if robots.unavailable(ctx.site):
        why = f"answers {response.status}" if response else f"failed: {ctx.site.robots_error}"
        return verdict(None, {"unavailable": f"The request for robots.txt {why}"})
    if response is None or not 200 <= response.status < 300:
        return verdict([], {})
    found = robots.problems(robots.text(response))
    shown = [f"line {p['line']}: {p['message']}: {p['content']}" for p in found]
    errors = {"invalid": f"robots.txt has {len(found)} invalid lines."} if found else {}
    return verdict(shown[: robots.MAX_PROBLEMS], errors)


def noindex(ctx: Context) -> Outcome:
    """Search engines may index the page: no `noindex`, `none` or past `unavailable_after`
    for them in robots `<meta>` tags or `X-Robots-Tag` headers. Value: the blocking sources.

    Asked for each crawler of `robots.AGENTS` as Lighthouse does (a crawler's own meta tag
    replaces `robots`; a header naming another crawler does not count); fails when every one
    of them is kept out.
    """
    metas: dict[str, str] = {}
    for node in ctx.tags("meta"):
        name = _attr(node, "name").lower()
        if name and name not in metas:
            metas[name] = node.attrs.sget("content")
    blocked = indexing.blocked_agents(metas, ctx.page.lines("x-robots-tag"), ctx.now)
    sources = _distinct(source for found in blocked.values() for source in found)
    errors: Errors = {}
    if all(blocked.values()):
        errors["noindex"] = "The page asks search engines not to index it."
    return verdict(sources, errors)


def canonical(ctx: Context) -> Outcome:
    """One canonical URL, absolute http(s), from `<head>` or a `Link:` header, by
    Lighthouse's canonical audit: not several different ones, not another language's
    alternate of this page, not the home page named from a deeper page. Value: the URL.

    A page without any canonical fails as `missing` (Lighthouse: not applicable).
    """
    url, errors = links.canonical_problems(ctx.url, ctx.link_targets)
    return verdict(url, errors)


def hreflang(ctx: Context) -> Outcome:
    """Every alternate's `hreflang` is `x-default` or a BCP 47 tag of a real language and
    region, and its href an absolute URL (`<head>` and `Link:` headers). Value: the codes.

    Passes when the page declares none.
    """
    alternates = [
        link for link in ctx.link_targets if "alternate" in link.rels and link.hreflang is not None
    ]
    codes = _distinct(link.hreflang or "" for link in alternates)
    invalid = [f'"{code}" {why}' for code in codes if (why := links.hreflang_problem(code))]
    relative = _distinct(link.href for link in alternates if not links.absolute_http(link.href))
    errors: Errors = {}
    if invalid:
        errors["invalid"] = "Invalid hreflang codes: " + "; ".join(invalid) + "."
    if relative:
        errors["relative"] = "Alternates without an absolute URL: " + ", ".join(relative) + "."
    return verdict(codes, errors)


def sitemap(ctx: Context) -> Outcome:
    """robots.txt declares a `Sitemap:`. Value: the sitemap URLs."""
    sitemaps = robots.sitemaps(ctx.site)
    errors = {} if sitemaps else {"missing": "robots.txt declares no Sitemap."}
    return verdict(_distinct(sitemaps), errors)
