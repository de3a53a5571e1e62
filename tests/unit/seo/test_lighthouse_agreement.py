"""Our checks against Lighthouse's SEO audits, case by case.

Each case is an input written after the behaviour Lighthouse's audits and their tests
describe (core/audits/seo/*.js, the accessibility image-alt audit and the viewport audit),
with the verdict Lighthouse gives. `robots` and `noindex` together answer its
is-crawlable audit. Cases where Lighthouse says "not applicable" are not compared; cases
where we deliberately differ are listed in `DIFFERENCES` with the reason, and count
against the agreement figure, which must stay at 95% or more.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from sitelens.seo.checks import CHECKS, Context
from sitelens.seo.page import Response, Site

URL = "https://example.com/page"
OUR_CHECKS = {
    "document-title": ("title",),
    "meta-description": ("meta_description",),
    "http-status-code": ("http_status_code",),
    "link-text": ("link_text",),
    "crawlable-anchors": ("crawlable_anchors",),
    "is-crawlable": ("robots", "noindex"),
    "robots-txt": ("robots_txt",),
    "image-alt": ("image_keywords",),
    "hreflang": ("hreflang",),
    "canonical": ("canonical",),
    "viewport": ("meta_viewport",),
}


@dataclass(frozen=True)
class Case:
    audit: str
    name: str
    html: str = ""
    passes: bool = True  # Lighthouse's verdict
    headers: dict[str, str] = field(default_factory=dict)
    robots: str | None = None
    robots_status: int = 200
    status: int = 200
    url: str = URL


def A(href: str, text: str, extra: str = "") -> str:
    return f'<a href="{href}" {extra}>{text}</a>'


CASES = [
    # document-title: a non-empty <title>
    Case("document-title", "a title", "<title>Pricing plans</title>"),
    Case("document-title", "no title", "<p>x</p>", False),
    Case("document-title", "an empty title", "<title></title>", False),
    Case("document-title", "a title of spaces", "<title>   </title>", False),
    # meta-description: present and not empty
    Case(
        "meta-description", "a description", '<meta name="description" content="description text">'
    ),
    Case("meta-description", "none", "<p>x</p>", False),
    Case("meta-description", "empty", '<meta name="description" content="">', False),
    Case("meta-description", "whitespace", '<meta name="description" content="   ">', False),
    Case(
        "meta-description",
        "name in capitals",
        '<meta name="DESCRIPTION" content="A fine page of content">',
    ),
    # http-status-code: below 400
    Case("http-status-code", "200", "<p>x</p>"),
    Case("http-status-code", "404", "<p>x</p>", False, status=404),
    Case("http-status-code", "500", "<p>x</p>", False, status=500),
    # link-text
    Case("link-text", "descriptive", A("/plans", "See our plans")),
    Case("link-text", "click here", A("/a", "click here"), False),
    Case("link-text", "Click Here in capitals", A("/a", "Click Here"), False),
    Case("link-text", "read more", A("/a", "read more"), False),
    Case("link-text", "a nofollow link", A("/a", "click here", 'rel="nofollow"')),
    Case("link-text", "javascript: href", A("javascript:void(0)", "click here")),
    Case("link-text", "mailto: href", A("mailto:a@example.com", "here")),
    Case("link-text", "a link to the page itself", A("#section", "more")),
    Case(
        "link-text", "German 'hier' in a German page", '<html lang="de">' + A("/a", "hier"), False
    ),
    Case("link-text", "German 'hier' in an English page", '<html lang="en">' + A("/a", "hier")),
    Case("link-text", "Japanese", '<html lang="ja">' + A("/a", "続きを読む"), False),
    Case("link-text", "Spanish without a lang", A("/a", "más información"), False),
    Case("link-text", "a bare URL as text", A("/a", "https://example.com/a"), False),
    Case("link-text", "an empty text", A("/a", "")),
    # crawlable-anchors
    Case("crawlable-anchors", "a path", A("/a", "a")),
    Case("crawlable-anchors", "a fragment", A("#x", "x")),
    Case("crawlable-anchors", "an empty href", A("", "x")),
    Case("crawlable-anchors", "a hash", A("#", "x")),
    Case("crawlable-anchors", "a space", A(" ", "x")),
    Case("crawlable-anchors", "javascript:void(0)", A("javascript:void(0)", "x"), False),
    Case("crawlable-anchors", "javascript:void 0", A("javascript:void 0", "x"), False),
    Case("crawlable-anchors", "onclick without href", '<a onclick="go()">x</a>', False),
    Case("crawlable-anchors", "a role", '<a role="button" onclick="go()">x</a>'),
    Case("crawlable-anchors", "a mailto", A("mailto:a@example.com", "x")),
    Case("crawlable-anchors", "an id target", '<a id="top"></a>'),
    Case("crawlable-anchors", "a name target", '<a name="top"></a>'),
    Case("crawlable-anchors", "a file: URL", A("file:///C:/doc.html", "x"), False),
    Case("crawlable-anchors", "aria-current placeholder", '<a aria-current="page">x</a>'),
    Case("crawlable-anchors", "no href but target", '<a target="_blank">x</a>', False),
    # is-crawlable: robots.txt, meta robots, X-Robots-Tag
    Case("is-crawlable", "nothing blocks", "<p>x</p>"),
    Case("is-crawlable", "meta noindex", '<meta name="robots" content="noindex">', False),
    Case("is-crawlable", "meta none", '<meta name="robots" content="none">', False),
    Case("is-crawlable", "meta nofollow only", '<meta name="robots" content="nofollow">'),
    Case("is-crawlable", "header noindex", headers={"x-robots-tag": "noindex"}, passes=False),
    Case("is-crawlable", "header for another bot", headers={"x-robots-tag": "otherbot: noindex"}),
    Case(
        "is-crawlable", "header for googlebot only", headers={"x-robots-tag": "googlebot: noindex"}
    ),
    Case(
        "is-crawlable",
        "unavailable_after in the past",
        headers={"x-robots-tag": "unavailable_after: 25 Jun 2010 15:00:00 PST"},
        passes=False,
    ),
    Case(
        "is-crawlable",
        "unavailable_after in the future",
        headers={"x-robots-tag": "unavailable_after: 25 Jun 2099 15:00:00 PST"},
    ),
    Case(
        "is-crawlable",
        "robots.txt disallows all",
        robots="User-agent: *\nDisallow: /\n",
        passes=False,
    ),
    Case(
        "is-crawlable", "robots.txt disallows elsewhere", robots="User-agent: *\nDisallow: /admin\n"
    ),
    Case(
        "is-crawlable",
        "robots.txt allows googlebot",
        robots="User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nAllow: /\n",
    ),
    Case(
        "is-crawlable",
        "googlebot meta allows while robots meta blocks",
        '<meta name="robots" content="noindex"><meta name="googlebot" content="index">',
    ),
    # robots-txt
    Case(
        "robots-txt",
        "valid",
        robots="User-agent: *\nDisallow: /admin\nSitemap: https://example.com/s.xml\n",
    ),
    Case("robots-txt", "no robots.txt (404)", robots="", robots_status=404),
    Case("robots-txt", "server error", robots="", robots_status=500, passes=False),
    Case("robots-txt", "too many requests", robots="", robots_status=429, passes=False),
    Case("robots-txt", "unknown directive", robots="User-agent: *\nFoo: bar\n", passes=False),
    Case("robots-txt", "no colon", robots="User-agent: *\nDisallow /\n", passes=False),
    Case(
        "robots-txt", "rule before user-agent", robots="Disallow: /\nUser-agent: *\n", passes=False
    ),
    Case("robots-txt", "relative sitemap", robots="Sitemap: /sitemap.xml\n", passes=False),
    Case("robots-txt", "bad pattern", robots="User-agent: *\nDisallow: admin\n", passes=False),
    Case("robots-txt", "dollar inside", robots="User-agent: *\nAllow: /a$b\n", passes=False),
    Case(
        "robots-txt",
        "yandex directives",
        robots="User-agent: *\nClean-param: ref\nHost: example.com\n",
    ),
    # image-alt (axe's image-alt rule)
    Case("image-alt", "alt text", '<img src="a.png" alt="A cat">'),
    Case("image-alt", "no alt", '<img src="a.png">', False),
    Case("image-alt", "decorative alt", '<img src="a.png" alt="">'),
    Case("image-alt", "role presentation", '<img src="a.png" role="presentation">'),
    Case("image-alt", "role none", '<img src="a.png" role="none">'),
    Case("image-alt", "aria-label", '<img src="a.png" aria-label="A cat">'),
    Case(
        "image-alt", "aria-labelledby", '<img src="a.png" aria-labelledby="c"><p id="c">A cat</p>'
    ),
    Case(
        "image-alt", "aria-labelledby to nothing", '<img src="a.png" aria-labelledby="none">', False
    ),
    Case("image-alt", "title", '<img src="a.png" title="A cat">'),
    Case("image-alt", "aria-hidden", '<img src="a.png" aria-hidden="true">'),
    # hreflang
    Case("hreflang", "none", "<p>x</p>"),
    Case("hreflang", "valid", '<link rel="alternate" hreflang="es" href="https://example.com/es">'),
    Case(
        "hreflang",
        "x-default",
        '<link rel="alternate" hreflang="x-default" href="https://example.com/">',
    ),
    Case(
        "hreflang",
        "language and region",
        '<link rel="alternate" hreflang="en-GB" href="https://example.com/uk">',
    ),
    Case(
        "hreflang",
        "unknown language",
        '<link rel="alternate" hreflang="xx" href="https://example.com/x">',
        False,
    ),
    Case(
        "hreflang",
        "a region alone",
        '<link rel="alternate" hreflang="us" href="https://example.com/x">',
        False,
    ),
    Case(
        "hreflang",
        "leading space",
        '<link rel="alternate" hreflang=" es" href="https://example.com/es">',
        False,
    ),
    Case("hreflang", "relative href", '<link rel="alternate" hreflang="es" href="/es">', False),
    Case(
        "hreflang",
        "valid in a Link header",
        headers={"link": '<https://example.com/es>; rel="alternate"; hreflang="es"'},
    ),
    Case(
        "hreflang",
        "invalid in a Link header",
        headers={"link": '<https://example.com/x>; rel="alternate"; hreflang="xx"'},
        passes=False,
    ),
    # canonical (no canonical at all: not applicable)
    Case("canonical", "valid", '<link rel="canonical" href="https://example.com/page">'),
    Case("canonical", "relative", '<link rel="canonical" href="/page">', False),
    Case("canonical", "invalid", '<link rel="canonical" href="https:// example">', False),
    Case(
        "canonical",
        "conflicting",
        '<link rel="canonical" href="https://example.com/a"><link rel="canonical" href="https://example.com/b">',
        False,
    ),
    Case(
        "canonical",
        "root from a deeper page",
        '<link rel="canonical" href="https://example.com/">',
        False,
    ),
    Case(
        "canonical",
        "root from the root",
        '<link rel="canonical" href="https://example.com/">',
        url="https://example.com/",
    ),
    Case("canonical", "another site", '<link rel="canonical" href="https://other.example/page">'),
    Case(
        "canonical",
        "another language",
        '<link rel="canonical" href="https://example.com/es"><link rel="alternate" hreflang="es" '
        'href="https://example.com/es"><link rel="alternate" hreflang="en" href="https://example.com/page">',
        False,
    ),
    Case(
        "canonical",
        "in a Link header",
        headers={"link": '<https://example.com/page>; rel="canonical"'},
    ),
    Case(
        "canonical",
        "header and head disagree",
        '<link rel="canonical" href="https://example.com/b">',
        False,
        headers={"link": '<https://example.com/page>; rel="canonical"'},
    ),
    # viewport
    Case(
        "viewport",
        "device width",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
    ),
    Case("viewport", "initial-scale only", '<meta name="viewport" content="initial-scale=1">'),
    Case("viewport", "none", "<p>x</p>", False),
    Case(
        "viewport", "nonsense", '<meta name="viewport" content="initial-scale=microscopic">', False
    ),
    Case("viewport", "empty", '<meta name="viewport" content="">', False),
    # where we differ on purpose (DIFFERENCES)
    Case("document-title", "a title search results cut", "<title>" + "W" * 45 + "</title>"),
    Case("meta-description", "a description of one word", '<meta name="description" content="Hi">'),
]
# (audit, case name) -> why our check disagrees with Lighthouse
DIFFERENCES = {
    ("document-title", "a title search results cut"): (
        "title also fails a title wider than search results show (600 px)"
    ),
    ("meta-description", "a description of one word"): (
        "meta_description also fails a description under 10 characters"
    ),
}


def our_verdict(case: Case) -> bool:
    headers = {"content-type": "text/html; charset=utf-8", **case.headers}
    page = Response(case.url, case.status, headers, case.html.encode(), 0.1)
    robots = None
    if case.robots is not None:
        robots = Response(
            "https://example.com/robots.txt", case.robots_status, {}, case.robots.encode(), 0.1
        )
    context = Context(Site(page=page, robots_txt=robots, missing_page_status=404))
    return all(CHECKS[key].run(context).passed for key in OUR_CHECKS[case.audit])


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.audit}: {case.name}")
def test_agrees_with_lighthouse(case: Case) -> None:
    expected = case.passes
    if (case.audit, case.name) in DIFFERENCES:
        expected = not expected
    assert our_verdict(case) is expected


def test_agreement_is_at_least_95_percent() -> None:
    agreeing = sum(our_verdict(case) is case.passes for case in CASES)
    share = agreeing / len(CASES)
    print(f"agreement with Lighthouse: {agreeing} of {len(CASES)} cases ({share:.1%})")
    assert share >= 0.95
    assert {case.audit for case in CASES} == set(OUR_CHECKS)
