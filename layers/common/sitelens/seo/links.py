"""Links as search engines read them: `Link:` response headers (RFC 8288), canonical and
hreflang rules (Google's documentation, Lighthouse's canonical and hreflang audits), and
Lighthouse's list of link texts that say nothing, in its languages.

Only `<link>` elements in `<head>` count: search engines ignore those in `<body>` (and the
HTML standard does not allow canonical or alternate links there).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import urljoin

from sitelens.core import hosts

X_DEFAULT: Final = "x-default"

# RFC 8288, one token at a time: `<uri>`, `; name=value` (value maybe quoted), or the
# comma between two links
_TOKEN: Final = re.compile(
    r"\s*(?:<(?P<uri>[^>]*)>|;\s*(?P<name>[^\s;,=]+)\s*"
    r'(?:=\s*(?P<value>"(?:[^"\\]|\\.)*"|[^;,]*))?|(?P<comma>,))'
)


@dataclass(frozen=True)
class LinkTarget:
    """One link to another resource: from an element in `<head>` or a `Link:` header."""

    href: str  # as written (stripped of surrounding whitespace for elements)
    rels: frozenset[str]  # lower-case tokens
    hreflang: str | None  # as written, None when absent
    source: str  # "head" or "header"


def header_links(lines: list[str]) -> list[LinkTarget]:
    """The links of `Link:` header lines (RFC 8288); a malformed rest of a line is ignored."""
    found = []
    for line in lines:
        links: list[tuple[str, dict[str, str]]] = []
        position = 0
        while position < len(line) and (token := _TOKEN.match(line, position)):
            if token.end() == position:
                break
            position = token.end()
            if token.group("uri") is not None:
                links.append((token.group("uri").strip(), {}))
            elif token.group("name") and links:
                value = (token.group("value") or "").strip()
                if value.startswith('"'):
                    value = value[1:-1].replace('\\"', '"')
                links[-1][1].setdefault(token.group("name").lower(), value)
        found += [
            LinkTarget(
                href=href,
                rels=frozenset(params.get("rel", "").lower().split()),
                hreflang=params.get("hreflang"),
                source="header",
            )
            for href, params in links
        ]
    return found


def _joined(base: str, href: str) -> str:
    """`href` made absolute against `base`; "" when either cannot be parsed."""
    try:
        return urljoin(base, href)
    except ValueError:
        return ""


def absolute_http(url: str) -> bool:
    """Whether `url` is an absolute http(s) URL with a host and no whitespace."""
    if "//" not in url:
        return False  # no authority, so no host: most link texts, found without parsing
    if len(url) > _CACHED_URL_LENGTH:
        return _absolute_http(url)
    return _cached_absolute_http(url)


def _absolute_http(url: str) -> bool:
    parts = hosts.split_url(url)
    return (
        parts is not None
        and parts.scheme.lower() in ("http", "https")
        and bool(parts.hostname)
        and url.split() == [url]  # no whitespace anywhere in it
    )


# A page links to the same URLs over and over (the link checks ask of each link, a tenth of
# a large page's analysis); URLs up to 2 KB are remembered, at most 8 MB of them.
_CACHED_URL_LENGTH: Final = 2048
_cached_absolute_http = functools.lru_cache(maxsize=4096)(_absolute_http)


def canonical_problems(page_url: str, links: list[LinkTarget]) -> tuple[str | None, dict[str, str]]:
    """The canonical URL and what is wrong with it, by Lighthouse's canonical audit:
    an invalid or relative href, several different canonicals (head and header together),
    a canonical that is another language's alternate of this page, or the site's root
    named from a deeper page. No canonical at all is `missing` (Lighthouse: not applicable).
    """
    canonicals = [link for link in links if "canonical" in link.rels and link.href]
    alternates = {
        _joined(page_url, link.href)
        for link in links
        if "alternate" in link.rels and link.hreflang and link.href
    }
    errors: dict[str, str] = {}
    urls: list[str] = []
    for link in canonicals:
        if not absolute_http(link.href):
            parts = hosts.split_url(link.href)
            relative = parts is not None and not parts.scheme
            if relative and absolute_http(_joined(page_url, link.href)):
                errors["relative"] = (
                    f'The canonical href "{link.href}" is not an absolute URL (https://…).'
                )
            else:
                errors["invalid"] = f'The canonical href "{link.href}" is not a valid http(s) URL.'
        elif link.href not in urls:
            urls.append(link.href)
    if not canonicals:
        errors["missing"] = (
            'The page has no <link rel="canonical"> in its <head> nor a Link header naming one.'
        )
    if len(urls) > 1:
        errors["multiple"] = "The page declares different canonical URLs: " + ", ".join(urls)
    if len(urls) == 1 and not errors:
        canonical, page = hosts.split_url(urls[0]), hosts.split_url(page_url)
        if canonical is None or page is None:
            pass
        elif page_url in alternates and urls[0] in alternates and urls[0] != page_url:
            errors["other_language"] = (
                f"The canonical URL {urls[0]} is another language's version of this page."
            )
        elif (
            (canonical.scheme, canonical.netloc) == (page.scheme, page.netloc)
            and canonical.path in ("", "/")
            and page.path not in ("", "/")
        ):
            errors["root"] = (
                f"The canonical URL {urls[0]} is the site's home page, not an equivalent page."
            )
    return (urls[0] if urls else (canonicals[0].href if canonicals else None)), errors


def hreflang_problem(code: str) -> str | None:
    """Why an hreflang code is not valid BCP 47 with a real language (ISO 639) and region
    (ISO 3166 or UN M.49), or None; `x-default` is valid. Whitespace is not trimmed."""
    if code.lower() == X_DEFAULT:
        return None
    if code != code.strip() or not code:
        return "has whitespace" if code else "is empty"
    if "_" in code:
        return "uses _ where BCP 47 has -"
    # Imported here: their registries take about 80 ms to load, which every function that
    # imports the audit checks (listing an audit's issues, say) paid at a cold start.
    import langcodes
    import pycountry

    if not langcodes.tag_is_valid(code):
        return "is not a valid language[-Script][-REGION] code"
    region = langcodes.Language.get(code, normalize=False).territory
    # the registry keeps private-use regions (XX, QM-QZ, ...) and exceptionally reserved
    # ones (UK): search engines want a country of ISO 3166 or a UN M.49 area
    if region and not region.isdigit() and pycountry.countries.get(alpha_2=region) is None:
        return f"has {region}, which is not an ISO 3166 country"
    return None


def same_page(url: str, page_url: str) -> bool:
    """Whether `url` is the page itself, fragments aside."""
    return url.split("#", 1)[0] == page_url.split("#", 1)[0]
