"""Each SEO check on small HTML snippets: one that passes, one that fails, and odd pages."""

from __future__ import annotations

import pytest

from sitelens.seo.checks import (
    CHECKS,
    Context,
    Outcome,
)
from sitelens.seo.encoding import decode
from sitelens.seo.page import Response, Site
from sitelens.seo.robots import MAX_ROBOTS_BYTES
from sitelens.seo.text import has_word, keywords

URL = "https://example.com/pricing"
UTF8 = {"content-type": "text/html; charset=utf-8"}
CAFE = "Caf\u00e9 \u2013 Men\u00fc"  # an en dash: 0x96 in windows-1252, a control in latin-1


def make_site(
    html: str | bytes = "",
    *,
    url: str = URL,
    status: int = 200,
    headers: dict[str, str] | None = None,
    elapsed: float = 0.5,
    content_encoding: str = "gzip",
    robots: str | Response | None = None,
    missing_page_status: int | None = 404,
) -> Site:
    """A fetched site as the fetcher would hand it over."""
    body = html.encode() if isinstance(html, str) else html
    page = Response(
        url, status, UTF8 if headers is None else headers, body, elapsed, 0, content_encoding
    )
    if isinstance(robots, str):
        robots = Response("https://example.com/robots.txt", 200, {}, robots.encode(), 0.1)
    return Site(page=page, robots_txt=robots, missing_page_status=missing_page_status)


def run(key: str, html: str | bytes = "", **kwargs: object) -> Outcome:
    """Run one check on a page."""
    return CHECKS[key].run(Context(make_site(html, **kwargs)))  # type: ignore[arg-type]


def words(count: int) -> str:
    return " ".join(f"word{i}" for i in range(count))


# --- seo ---------------------------------------------------------------------------------


def test_title_passes_with_one_short_title() -> None:
    assert run("title", "<title>Pricing - Example</title>") == (True, "Pricing - Example", None)


@pytest.mark.parametrize(
    ("html", "error"),
    [
        ("<p>no title</p>", "missing"),
        ("<title>  </title>", "empty"),
        ("<title>" + "x" * 61 + "</title>", "too_long"),
        ("<title>One</title><title>Two</title>", "multiple"),
    ],
)
def test_title_fails(html: str, error: str) -> None:
    outcome = run("title", html)
    assert not outcome.passed
    assert outcome.errors is not None and error in outcome.errors


def test_title_length_is_its_width_in_search_results() -> None:
    outcome = run("title", "<title>" + "x" * 49 + "&amp;</title>")
    assert outcome.passed
    assert outcome.value == "x" * 49 + "&"
    # 70 narrow letters fit, 40 wide ones do not
    assert run("title", "<title>" + "l" * 70 + "</title>").passed
    wide = run("title", "<title>" + "W" * 40 + "</title>")
    assert wide.errors is not None and "too_long" in wide.errors
    # 30 Chinese characters are 600 px: the limit; 31 are over it
    assert run("title", "<title>" + "中" * 30 + "</title>").passed
    assert not run("title", "<title>" + "中" * 31 + "</title>").passed


def test_title_reports_the_first_of_several() -> None:
    outcome = run("title", "<title>First</title><title>Second</title>")
    assert outcome.value == "First"
    assert outcome.errors == {"multiple": "The page has 2 <title> elements; keep one."}


def test_title_ignores_svg_titles() -> None:
    html = "<title>Page</title><body><svg><title>icon</title></svg>"
    assert run("title", html).passed
    assert not run("title", "<svg><title>icon</title></svg>").passed


def test_meta_description_passes() -> None:
    html = '<meta name="description" content=" Plans  and prices ">'
    assert run("meta_description", html) == (True, "Plans and prices", None)


@pytest.mark.parametrize(
    ("html", "error"),
    [("<title>x</title>", "missing"), ('<meta name="description" content="  ">', "empty")],
)
def test_meta_description_fails(html: str, error: str) -> None:
    outcome = run("meta_description", html)
    assert not outcome.passed
    assert outcome.errors is not None and list(outcome.errors) == [error]


def test_headings_passes_with_one_h1_unlike_the_title() -> None:
    outcome = run("headings", "<title>Pricing</title><h1>Our <b>plans</b></h1><h2>More</h2>")
    assert outcome == (True, ["Our plans"], None)


@pytest.mark.parametrize(
    ("html", "error"),
    [
        ("<h2>Only h2</h2>", "missing"),
        ("<h1>One</h1><h1>Two</h1>", "multiple"),
        ("<title>Pricing Plans</title><h1>pricing  plans</h1>", "same_as_title"),
    ],
)
def test_headings_fails(html: str, error: str) -> None:
    outcome = run("headings", html)
    assert not outcome.passed
    assert outcome.errors is not None and error in outcome.errors


def test_content_keywords_passes_when_title_words_are_in_the_text() -> None:
    html = (
        '<title>The Best Organic Apples | Acme</title><meta property="og:site_name" '
        'content="Acme"><p>We sell the best organic apples.</p>'
    )
    outcome = run("content_keywords", html)  # the site's name, after the bar, is left out
    assert outcome == (True, ["organic", "apples"], None)


def test_content_keywords_leaves_out_the_site_name_and_the_language_s_stop_words() -> None:
    html = (
        '<html lang="de"><title>Die besten Rezepte für den Sommer | Kochbuch</title>'
        '<meta property="og:site_name" content="Kochbuch"><p>Rezepte für den Sommer</p>'
    )
    assert run("content_keywords", html) == (True, ["rezepte", "sommer"], None)


def test_content_keywords_in_japanese_and_chinese() -> None:
    japanese = '<html lang="ja"><title>東京の天気予報</title><p>今日の東京の天気予報です。</p>'
    assert run("content_keywords", japanese) == (True, ["東京", "天気予報"], None)
    chinese = '<html lang="zh"><title>今日新闻</title><p>这是今日新闻的内容。</p>'
    assert run("content_keywords", chinese).passed


def test_content_keywords_fails_on_missing_words() -> None:
    html = "<title>Organic Apples Harvest</title><p>We sell apples.</p><script>organic</script>"
    outcome = run("content_keywords", html)
    assert not outcome.passed
    assert outcome.value == ["organic", "apples", "harvest"]
    assert outcome.errors == {"missing": "Title words not in the page text: organic, harvest."}


def test_content_keywords_fails_without_a_title() -> None:
    outcome = run("content_keywords", "<p>text</p>")
    assert not outcome.passed
    assert outcome.errors is not None and "no_keywords" in outcome.errors


def test_keywords_skip_short_and_stop_words() -> None:
    assert keywords("How to Make a Cake in 10 Minutes: the Guide") == ["cake", "minutes", "guide"]


def test_has_word_matches_whole_words_only() -> None:
    assert has_word("our plan is simple", "plan")
    assert not has_word("planets and airplanes", "plan")
    assert has_word("planets, airplanes and a plan.", "plan")
    assert has_word("plan", "plan")


def test_image_keywords_passes_when_every_image_has_alt() -> None:
    assert run("image_keywords", '<img src="a.webp" alt="A cat">') == (True, [], None)
    assert run("image_keywords", "<p>no images</p>").passed


def test_image_keywords_fails_on_missing_alt_only() -> None:
    html = '<img src="/a.png"><img src="b.png" alt=" "><img src="c.png" alt="ok"><img src="d.png">'
    outcome = run("image_keywords", html)
    assert not outcome.passed
    assert outcome.value == ["https://example.com/a.png", "https://example.com/d.png"]
    assert outcome.errors == {
        "missing_alt": '2 images without alt text, the first <img src="https://example.com/a.png">;'
        ' every <img> needs one (alt="" if decorative).'
    }


@pytest.mark.parametrize(
    "image",
    [
        '<img src="a.png" alt="">',  # decorative
        '<img src="a.png" role="presentation">',
        '<img src="a.png" role="none">',
        '<img src="a.png" aria-hidden="true">',
        '<img src="a.png" aria-label="Our team">',
        '<img src="a.png" title="Our team">',
        '<img src="a.png" aria-labelledby="cap"><p id="cap">Our team</p>',
        '<img src="/pixel.gif" width="1" height="1">',  # a tracking pixel
    ],
)
def test_image_keywords_passes_for_decorative_named_and_pixel_images(image: str) -> None:
    assert run("image_keywords", image).passed


def test_image_keywords_fails_when_aria_labelledby_names_nothing() -> None:
    assert not run("image_keywords", '<img src="a.png" aria-labelledby="nowhere">').passed


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/",
        "https://example.com",
        "https://example.com/blog/seo-friendly-urls",
        "https://example.com/blog/seo-friendly-urls/",
        "https://example.com/docs/page-2.html",
        "https://example.com/products?page=2&sort=price",
        "https://example.com/caf%C3%A9-menu",
    ],
)
def test_seo_friendly_url_passes(url: str) -> None:
    assert run("seo_friendly_url", url=url) == (True, url, None)


@pytest.mark.parametrize(
    ("url", "error"),
    [
        ("https://example.com/Blog/Post", "uppercase"),
        ("https://example.com/seo_friendly", "underscores"),
        ("https://example.com/seo%20friendly", "spaces"),
        ("https://example.com/seo+friendly", "spaces"),
        ("https://example.com/a//b", "characters"),
        ("https://example.com/seo--friendly", "characters"),
        ("https://example.com/index.php,v=1", "characters"),
        ("https://example.com/p?a=1&b=2&c=3", "query"),
        ("https://example.com/" + "a" * 101, "too_long"),
    ],
)
def test_seo_friendly_url_fails(url: str, error: str) -> None:
    outcome = run("seo_friendly_url", url=url)
    assert not outcome.passed
    assert outcome.errors is not None and error in outcome.errors


def test_404_page() -> None:
    assert run("404_page", missing_page_status=404) == (True, 404, None)
    assert run("404_page", missing_page_status=200) == (
        False,
        200,
        {"status": "A missing page answers 200, not 404."},
    )
    outcome = run("404_page", missing_page_status=None)
    assert not outcome.passed and outcome.errors is not None and "unchecked" in outcome.errors


ALL_ALLOWED = dict.fromkeys(("*", "Googlebot", "Bingbot", "DuckDuckBot", "archive.org_bot"), True)


@pytest.mark.parametrize(
    "robots",
    [
        None,
        Response("https://example.com/robots.txt", 404, {}, b"Not found", 0.1),
        "User-agent: *\nDisallow: /admin\n",
        "",
    ],
)
def test_robots_allows(robots: str | Response | None) -> None:
    assert run("robots", robots=robots) == (True, ALL_ALLOWED, None)


def test_robots_disallows_everyone() -> None:
    outcome = run("robots", robots="User-agent: *\nDisallow: /\n")
    assert outcome.value == dict.fromkeys(ALL_ALLOWED, False)
    assert outcome.errors == {
        "disallowed": "robots.txt disallows this page for every search engine."
    }


def test_robots_passes_while_one_search_engine_may_crawl_as_lighthouse() -> None:
    outcome = run(
        "robots", robots="User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nAllow: /\n"
    )
    assert outcome.passed
    assert outcome.value == {**dict.fromkeys(ALL_ALLOWED, False), "Googlebot": True}


def test_robots_server_error_means_disallowed() -> None:
    robots = Response("https://example.com/robots.txt", 503, {}, b"", 0.1)
    outcome = run("robots", robots=robots)
    assert not outcome.passed
    assert outcome.errors == {"unavailable": "robots.txt answers 503: search engines stay away."}


def test_noindex_passes() -> None:
    html = '<meta name="robots" content="index, follow">'
    assert run("noindex", html, headers={"x-robots-tag": "nofollow"}) == (True, [], None)


@pytest.mark.parametrize(
    ("html", "headers", "where"),
    [
        ('<meta name="robots" content="noindex, nofollow">', {}, '<meta name="robots">'),
        ('<META NAME="ROBOTS" CONTENT="NOINDEX">', {}, '<meta name="robots">'),
        ('<meta name="robots" content="none">', {}, '<meta name="robots">'),
        ("", {"x-robots-tag": "noindex"}, "X-Robots-Tag: noindex"),
        (
            "",
            {"x-robots-tag": "unavailable_after: 25 Jun 2010 15:00:00 PST"},
            "X-Robots-Tag: unavailable_after: 25 jun 2010 15:00:00 pst",
        ),
    ],
)
def test_noindex_fails(html: str, headers: dict[str, str], where: str) -> None:
    outcome = run("noindex", html, headers=headers)
    assert not outcome.passed
    assert outcome.value == [where]


@pytest.mark.parametrize(
    ("html", "headers"),
    [
        # only one search engine is kept out: Lighthouse passes and names it
        ('<meta name="googlebot" content="none">', {}),
        ("", {"x-robots-tag": "googlebot: noindex, nofollow"}),
        # a crawler that is none of the search engines asked about
        ("", {"x-robots-tag": "otherbot: noindex"}),
        ('<meta name="otherbot" content="noindex">', {}),
        # a date still to come
        ("", {"x-robots-tag": "unavailable_after: 2999-01-01"}),
        # the generic tag blocks, but every search engine's own tag allows
        (
            '<meta name="robots" content="noindex"><meta name="googlebot" content="index">',
            {},
        ),
    ],
)
def test_noindex_passes_while_search_engines_may_index(html: str, headers: dict[str, str]) -> None:
    assert run("noindex", html, headers=headers).passed


def test_in_page_links() -> None:
    assert run("in_page_links", '<a href="/x">x</a>' * 150) == (True, 150, None)
    outcome = run("in_page_links", '<a href="/x">x</a>' * 151 + "<a>no href</a>")
    assert not outcome.passed
    assert outcome.value == 151


def test_language() -> None:
    assert run("language", '<html lang="en-GB"><title>x</title>') == (True, "en-GB", None)
    assert not run("language", "<html><title>x</title>").passed
    assert not run("language", '<html lang=" ">').passed


@pytest.mark.parametrize(
    "html",
    ['<link rel="icon" href="/favicon.ico">', '<LINK REL="Shortcut Icon" HREF="/favicon.ico">'],
)
def test_favicon_passes(html: str) -> None:
    assert run("favicon", html) == (True, "https://example.com/favicon.ico", None)


@pytest.mark.parametrize(
    "html", ["", '<link rel="apple-touch-icon" href="/a.png">', '<link rel="icon" href="">']
)
def test_favicon_fails(html: str) -> None:
    outcome = run("favicon", html)
    assert not outcome.passed
    assert outcome.value is None


def test_canonical_passes() -> None:
    html = '<link rel="canonical" href="https://example.com/pricing">' * 2
    assert run("canonical", html) == (True, "https://example.com/pricing", None)


@pytest.mark.parametrize(
    ("html", "error"),
    [
        ("", "missing"),
        ('<link rel="canonical" href="/pricing">', "relative"),
        ('<link rel="canonical" href="ftp://example.com/a">', "invalid"),
        ('<link rel="canonical" href="https://">', "invalid"),
        ('<link rel="canonical" href="http://[oops/">', "invalid"),
        (
            '<link rel="canonical" href="https://example.com/a">'
            '<link rel="canonical" href="https://example.com/b">',
            "multiple",
        ),
        ('<link rel="canonical" href="https://example.com/">', "root"),
        (
            '<link rel="canonical" href="https://example.com/de/preise">'
            '<link rel="alternate" hreflang="de" href="https://example.com/de/preise">'
            '<link rel="alternate" hreflang="en" href="https://example.com/pricing">',
            "other_language",
        ),
    ],
)
def test_canonical_fails(html: str, error: str) -> None:
    outcome = run("canonical", html)
    assert not outcome.passed
    assert outcome.errors is not None and error in outcome.errors


def test_canonical_from_a_link_header_and_not_from_the_body() -> None:
    header = {**UTF8, "link": '<https://example.com/pricing>; rel="canonical"'}
    assert run("canonical", "<p>x</p>", headers=header).passed
    body_only = '<body><link rel="canonical" href="https://example.com/pricing"></body>'
    assert run("canonical", body_only).errors == {
        "missing": (
            'The page has no <link rel="canonical"> in its <head> nor a Link header naming one.'
        )
    }
    conflict = '<head><link rel="canonical" href="https://example.com/other"></head>'
    assert "multiple" in (run("canonical", conflict, headers=header).errors or {})


def test_hreflang_passes_with_valid_codes_or_none() -> None:
    codes = ["en", "en-GB", "zh-Hant-TW", "es-419", "x-default", "EN-us"]
    html = "".join(
        f'<link rel="alternate" hreflang="{c}" href="https://example.com/{c}">' for c in codes
    )
    assert run("hreflang", html) == (True, codes, None)
    assert run("hreflang", "<p>x</p>") == (True, [], None)


@pytest.mark.parametrize("code", ["en_GB", "english", "xx", "us", "en-XX", "en-UK", " es", ""])
def test_hreflang_fails_on_invalid_codes(code: str) -> None:
    html = f'<link rel="alternate" hreflang="{code}" href="https://example.com/x">'
    outcome = run(
        "hreflang", html + '<link rel="alternate" hreflang="de" href="https://example.com/de">'
    )
    assert not outcome.passed
    assert outcome.errors is not None and "invalid" in outcome.errors


def test_hreflang_fails_on_a_relative_href_and_reads_link_headers() -> None:
    outcome = run("hreflang", '<link rel="alternate" hreflang="de" href="/de">')
    assert outcome.errors == {"relative": "Alternates without an absolute URL: /de."}
    header = {**UTF8, "link": '<https://example.com/fr>; rel="alternate"; hreflang="fr"'}
    assert run("hreflang", "", headers=header) == (True, ["fr"], None)
    bad = {**UTF8, "link": '<https://example.com/fr>; rel="alternate"; hreflang="french"'}
    assert not run("hreflang", "", headers=bad).passed


def test_link_text_passes() -> None:
    assert run("link_text", '<a href="/plans">See our plans</a><a href="/x">More plans</a>').passed


def test_link_text_fails_on_generic_texts() -> None:
    html = (
        '<a href="/a">Click here</a><a href="/b"> Read  more » </a><a href="/c">here</a>'
        '<a href="/d">here</a><a href="/e">Pricing</a>'
    )
    outcome = run("link_text", html)
    assert not outcome.passed
    assert outcome.value == ["Click here", "Read more »", "here"]
    assert outcome.errors == {"generic": "Links with generic texts: 4."}


@pytest.mark.parametrize(
    "html",
    [
        '<html lang="de"><a href="/a">Hier klicken</a></html>',
        '<html lang="fr"><a href="/a">Cliquez ici</a></html>',
        '<html lang="it"><a href="/a">Leggi di più</a></html>',
        '<html lang="ja"><a href="/a">続きを読む</a></html>',
        '<html lang="es-MX"><a href="/a">Más información</a></html>',
        '<p lang="sv"><a href="/a">Läs mer</a></p>',
        '<a href="/a">https://example.com/a</a>',  # a bare URL says nothing either
    ],
)
def test_link_text_fails_in_other_languages(html: str) -> None:
    assert not run("link_text", html).passed


@pytest.mark.parametrize(
    "html",
    [
        '<a href="/a" rel="nofollow">click here</a>',
        '<a href="javascript:void(0)">click here</a>',
        '<a href="mailto:a@example.com">here</a>',
        '<a href="#top">here</a>',  # the page itself
        '<a href="https://example.com/pricing#faq">more</a>',
        '<html lang="en"><a href="/a">hier</a></html>',  # "hier" is generic in German only
    ],
)
def test_link_text_exemptions_as_lighthouse(html: str) -> None:
    assert run("link_text", html).passed


def test_crawlable_anchors_passes() -> None:
    html = (
        '<a href="/a">a</a><a href="#section">s</a><a href="mailto:x@y.z">m</a>'
        '<a href="">e</a><a href="#">h</a><a href=" ">s</a><a id="top"></a><a name="x"></a>'
        '<a role="button" onclick="go()">b</a><a aria-current="page">here</a>'
        '<a href="javascript:alert(1)">j</a>'
    )
    assert run("crawlable_anchors", html) == (True, [], None)


def test_crawlable_anchors_fails() -> None:
    html = (
        '<a onclick="go()">o</a><a href="JavaScript:void(0)">j</a><a href="javascript:void 0">v</a>'
        '<a href="file:///C:/x.html">f</a><a href="https://">u</a>'
    )
    outcome = run("crawlable_anchors", html)
    assert not outcome.passed
    assert outcome.value == [
        "(no href)",
        "JavaScript:void(0)",
        "javascript:void 0",
        "file:///C:/x.html",
        "https://",
    ]


@pytest.mark.parametrize(
    ("status", "passed"), [(200, True), (204, True), (404, False), (503, False)]
)
def test_http_status_code(status: int, passed: bool) -> None:
    assert run("http_status_code", status=status).passed is passed
    assert run("http_status_code", status=status).value == status


# --- performance -------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["gzip", "br", "zstd", "deflate", "BR"])
def test_text_compression_passes(encoding: str) -> None:
    assert run("text_compression", content_encoding=encoding).passed


@pytest.mark.parametrize("encoding", ["", "identity"])
def test_text_compression_fails(encoding: str) -> None:
    outcome = run("text_compression", content_encoding=encoding)
    assert not outcome.passed
    assert outcome.value == (encoding or None)


def test_load_time() -> None:
    assert run("load_time", elapsed=1.234) == (True, 1.23, None)
    outcome = run("load_time", elapsed=3.456)
    assert not outcome.passed
    assert outcome.value == 3.46
    assert not run("load_time", elapsed=2.0).passed


def test_page_size() -> None:
    assert run("page_size", "x" * 329_999) == (True, 329_999, None)
    outcome = run("page_size", "x" * 330_000)
    assert not outcome.passed
    assert outcome.value == 330_000


def test_http_requests_counts_distinct_resources_by_kind() -> None:
    html = (
        '<script src="/a.js"></script><script src="/a.js"></script><script>inline()</script>'
        '<link rel="stylesheet" href="/s.css"><link rel="preconnect" href="https://cdn.net">'
        '<img src="/1.png"><img src="data:image/png;base64,AAAA"><input type="image" src="/b.png">'
        '<iframe src="https://youtube.com/embed/x"></iframe>'
        '<video src="/v.mp4" poster="/p.jpg"><track src="/t.vtt"></video>'
        '<object data="/o.pdf"></object><embed src="/e.swf">'
    )
    outcome = run("http_requests", html)
    assert outcome.passed
    assert outcome.value == {
        "scripts": 1,
        "stylesheets": 1,
        "images": 2,
        "frames": 1,
        "media": 3,
        "objects": 2,
    }


def test_http_requests_fails_over_50() -> None:
    outcome = run("http_requests", "".join(f'<img src="/{i}.webp">' for i in range(51)))
    assert not outcome.passed
    assert outcome.errors == {"too_many": "The page loads 51 resources; keep it to 50."}


def test_image_format_passes_on_modern_images() -> None:
    html = (
        '<img src="/a.webp"><img src="b.AVIF?w=200"><img src="//cdn.net/c.svg#x">'
        '<img src="data:image/webp;base64,AAAA">'
        '<picture><source type="image/avif" srcset="d.avif"><img src="d.jpg"></picture>'
    )
    assert run("image_format", html) == (True, [], None)
    assert run("image_format", "<p>no images</p>").passed


def test_image_format_fails_on_legacy_images() -> None:
    html = (
        '<img src="/a.jpg"><img src="/image?id=3"><img src="data:image/png;base64,AAAA">'
        '<picture><source srcset="b.jpg"><img src="b.png"></picture><img src="c.webp">'
    )
    outcome = run("image_format", html)
    assert not outcome.passed
    assert outcome.value == [
        "https://example.com/a.jpg",
        "https://example.com/image?id=3",
        "data:image/png;base64,…",
        "https://example.com/b.png",
    ]


def test_defer_javascript_passes() -> None:
    html = (
        '<script src="/a.js" defer></script><script src="/b.js" async></script>'
        '<script src="/c.js" type="module"></script><script>inline()</script>'
        '<script type="application/ld+json" src="/d.json"></script>'
    )
    assert run("defer_javascript", html) == (True, [], None)


def test_defer_javascript_fails_on_blocking_scripts() -> None:
    html = '<script src="/a.js"></script><script src="b.js" type="text/javascript"></script>'
    outcome = run("defer_javascript", html)
    assert not outcome.passed
    assert outcome.value == ["https://example.com/a.js", "https://example.com/b.js"]


def test_dom_size() -> None:
    # html, head and body are elements too
    assert run("dom_size", "<div></div>" * 1497) == (True, 1500, None)
    outcome = run("dom_size", "<div></div>" * 1498 + "<!-- comments do not count -->")
    assert not outcome.passed
    assert outcome.value == 1501


# --- security ----------------------------------------------------------------------------


def test_https_encryption() -> None:
    assert run("https_encryption") == (True, "https", None)
    outcome = run("https_encryption", url="http://example.com/")
    assert not outcome.passed
    assert outcome.value == "http"


def test_mixed_content_passes() -> None:
    html = '<img src="/a.png"><script src="//cdn.net/a.js"></script><a href="http://x.org">x</a>'
    assert run("mixed_content", html) == (True, [], None)
    # a plain-HTTP page cannot mix content
    assert run("mixed_content", '<img src="http://x.org/a.png">', url="http://example.com/").passed


def test_mixed_content_fails() -> None:
    html = '<img src="http://cdn.net/a.png"><link rel="stylesheet" href="HTTP://cdn.net/s.css">'
    outcome = run("mixed_content", html)
    assert not outcome.passed
    assert outcome.value == ["HTTP://cdn.net/s.css", "http://cdn.net/a.png"]


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"server": "nginx"},
        {"server": "cloudflare", "x-powered-by": "Express"},
        {"server": "ECS (dcb/7F84)"},
    ],
)
def test_server_signature_passes(headers: dict[str, str]) -> None:
    outcome = run("server_signature", headers=headers)
    assert outcome == (True, headers, None)


@pytest.mark.parametrize(
    "headers",
    [
        {"server": "nginx/1.18.0"},
        {"server": "Apache/2.4.41 (Ubuntu)"},
        {"server": "Apache/2"},
        {"x-powered-by": "PHP/8.1.2"},
        {"server": "Microsoft-IIS/10.0", "x-powered-by": "ASP.NET"},
    ],
)
def test_server_signature_fails(headers: dict[str, str]) -> None:
    outcome = run("server_signature", headers=headers)
    assert not outcome.passed
    assert outcome.value == headers


def test_unsafe_cross_origin_links_passes() -> None:
    html = (
        '<a href="/docs" target="_blank">same origin</a>'
        '<a href="https://example.com/a" target="_blank">same origin</a>'
        '<a href="https://other.org/" target="_blank" rel="noopener">safe</a>'
        '<a href="https://other.org/" target="_blank" rel="nofollow NoReferrer">safe</a>'
        '<a href="https://other.org/">same tab</a>'
        '<a href="mailto:a@b.c" target="_blank">mail</a>'
    )
    assert run("unsafe_cross_origin_links", html) == (True, [], None)


def test_unsafe_cross_origin_links_fails() -> None:
    html = (
        '<a href="https://other.org/x" target="_blank" rel="opener">x</a>'
        '<a href="//cdn.net/y" TARGET="_BLANK" rel="nofollow opener">y</a>'
        '<a href="https://example.com/z" target="_blank" rel="opener">own site</a>'
        '<a href="https://third.net/" target="_blank">implied noopener</a>'
    )
    outcome = run("unsafe_cross_origin_links", html)
    assert not outcome.passed
    assert outcome.value == ["https://other.org/x", "https://cdn.net/y"]


def test_plaintext_email_passes() -> None:
    html = "<p>Write to us via the form.</p><script>var e = 'a@example.com'</script>"
    assert run("plaintext_email", html) == (True, [], None)


def test_plaintext_email_fails() -> None:
    html = (
        "<p>Mail jane.doe+sales@example.co.uk or jane.doe+sales@example.co.uk</p>"
        '<a href="mailto:info@example.com?subject=Hi">Contact</a>'
    )
    outcome = run("plaintext_email", html)
    assert not outcome.passed
    assert outcome.value == ["jane.doe+sales@example.co.uk", "info@example.com"]
    assert outcome.errors == {"exposed": "Email addresses readable by spam bots: 2."}


# --- miscellaneous -----------------------------------------------------------------------


def test_structured_data_passes_and_lists_what_was_found() -> None:
    html = (
        '<meta property="og:title" content="x"><meta name="twitter:card" content="summary">'
        '<script type="application/ld+json">{"@type": "Organization"}</script>'
    )
    assert run("structured_data", html) == (True, ["open_graph", "twitter_card", "json_ld"], None)
    assert run("structured_data", '<meta name="OG:Image" content="x">').value == ["open_graph"]


def test_structured_data_fails() -> None:
    outcome = run("structured_data", '<meta name="description" content="x">')
    assert outcome == (
        False,
        [],
        {"missing": "No Open Graph, Twitter card or JSON-LD data."},
    )


def test_meta_viewport() -> None:
    html = '<meta name="viewport" content="width=device-width, initial-scale=1">'
    assert run("meta_viewport", html) == (True, "width=device-width, initial-scale=1", None)
    assert not run("meta_viewport", "<title>x</title>").passed
    outcome = run("meta_viewport", '<meta name="viewport" content="user-scalable=no">')
    assert not outcome.passed
    assert outcome.errors is not None and "invalid" in outcome.errors


@pytest.mark.parametrize(
    ("html", "headers", "charset"),
    [
        ("", {"content-type": "text/html; charset=UTF-8"}, "utf-8"),
        ('<meta charset="utf-8">', {"content-type": "text/html"}, "utf-8"),
        (
            '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">',
            {},
            "iso-8859-1",
        ),
    ],
)
def test_charset_passes(html: str, headers: dict[str, str], charset: str) -> None:
    assert run("charset", html, headers=headers) == (True, charset, None)


def test_charset_fails() -> None:
    outcome = run("charset", "<title>x</title>", headers={"content-type": "text/html"})
    assert outcome == (False, None, {"missing": "No charset in Content-Type or a <meta>."})


def test_sitemap() -> None:
    robots = "User-agent: *\nAllow: /\nSitemap: https://example.com/sitemap.xml\n"
    assert run("sitemap", robots=robots) == (True, ["https://example.com/sitemap.xml"], None)
    assert not run("sitemap", robots="User-agent: *\nAllow: /\n").passed
    assert not run("sitemap", robots=None).passed


def test_social_passes_and_names_the_networks() -> None:
    html = (
        '<a href="https://www.facebook.com/acme">f</a><a href="//twitter.com/acme">t</a>'
        '<a href="https://x.com/acme">x</a><a href="https://GitHub.com/acme">g</a>'
        '<a href="https://mastodon.example.org/@acme">m</a><a href="https://www.linkedin.com/">l</a>'
    )
    outcome = run("social", html)
    assert outcome == (True, ["facebook", "x", "github", "mastodon", "linkedin"], None)


def test_social_fails_without_social_links() -> None:
    html = '<a href="/facebook.com">relative</a><a href="https://notfacebook.com/">other</a>'
    outcome = run("social", html)
    assert outcome == (False, [], {"missing": "The page links to no social network."})


def test_content_length() -> None:
    assert run("content_length", f"<p>{words(500)}</p>") == (True, 500, None)
    outcome = run("content_length", f"<p>{words(499)}</p><script>{words(100)}</script>")
    assert not outcome.passed
    assert outcome.value == 499


def test_text_html_ratio() -> None:
    outcome = run("text_html_ratio", f"<p>{words(100)}</p>")
    assert outcome.passed
    assert isinstance(outcome.value, float) and outcome.value > 90
    heavy = '<div class="wrapper"><div class="inner"><span>hi</span></div></div>' * 20
    outcome = run("text_html_ratio", heavy)
    assert not outcome.passed
    assert outcome.value == round(100 * len(" ".join(["hi"] * 20)) / len(heavy), 2)
    assert run("text_html_ratio", "").value == 0.0


def test_inline_css() -> None:
    assert run("inline_css", '<p class="x">x</p><div style="">empty</div>') == (True, [], None)
    html = '<p style="color:red">a</p><P STYLE="margin:0">b</P><span style="x">c</span>'
    outcome = run("inline_css", html)
    assert not outcome.passed
    assert outcome.value == ["p", "span"]
    assert outcome.errors == {"inline": "Elements with a style attribute: 3."}


def test_deprecated_html_tags() -> None:
    assert run("deprecated_html_tags", "<p><b>bold</b> and <s>gone</s></p>") == (True, [], None)
    html = "<center><font>x</font></center><marquee>m</marquee><tt>t</tt><strike>s</strike>"
    outcome = run("deprecated_html_tags", html)
    assert not outcome.passed
    assert outcome.value == ["center", "font", "marquee", "strike", "tt"]
    frames = run("deprecated_html_tags", '<html><frameset><frame src="a.html"></frameset></html>')
    assert frames.value == ["frame", "frameset"]


# --- real-world pages --------------------------------------------------------------------


def test_page_without_head_and_with_uppercase_markup() -> None:
    html = (
        '<HTML LANG="EN"><TITLE>Acme Widgets</TITLE>'
        '<META NAME="Description" CONTENT="Widgets made by Acme">'
        '<BODY><H1>Widgets by Acme</H1><IMG SRC="/w.webp" ALT="A widget">'
        '<A HREF="https://GitHub.com/acme" TARGET="_blank" REL="NOOPENER">Code</A>'
    )
    context = Context(make_site(html))
    outcomes = {key: CHECKS[key].run(context) for key in CHECKS}
    assert outcomes["title"].value == "Acme Widgets"
    assert outcomes["meta_description"].passed
    assert outcomes["headings"].passed
    assert outcomes["content_keywords"].passed
    assert outcomes["image_keywords"].passed
    assert outcomes["image_format"].passed
    assert outcomes["language"].value == "EN"
    assert outcomes["unsafe_cross_origin_links"].passed
    assert outcomes["social"].value == ["github"]


def test_relative_and_protocol_relative_urls_are_resolved() -> None:
    html = (
        '<img src="../img/a.png"><img src="//cdn.example.net/b.png"><img src="c.png">'
        '<img src="/d.png"><img src="https://other.org/e.png">'
    )
    outcome = run("image_format", html, url="https://example.com/blog/post")
    assert outcome.value == [
        "https://example.com/img/a.png",
        "https://cdn.example.net/b.png",
        "https://example.com/blog/c.png",
        "https://example.com/d.png",
        "https://other.org/e.png",
    ]


def test_windows_1252_declared_by_header() -> None:
    body = f"<title>{CAFE}</title><p>Crème brûlée</p>".encode("cp1252")
    headers = {"content-type": "text/html; charset=windows-1252"}
    assert run("title", body, headers=headers).value == CAFE


def test_iso_8859_1_header_decodes_as_windows_1252() -> None:
    # browsers read ISO-8859-1 as windows-1252, where 0x96 is an en dash
    body = f"<title>{CAFE}</title>".encode("cp1252")
    headers = {"content-type": "text/html; charset=ISO-8859-1"}
    assert run("title", body, headers=headers).value == CAFE


@pytest.mark.parametrize(
    "declaration",
    [
        '<meta charset="windows-1252">',
        "<meta charset=iso-8859-1>",
        '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">',
    ],
)
def test_windows_1252_declared_by_meta(declaration: str) -> None:
    body = f"<html><head>{declaration}<title>{CAFE}</title>".encode("cp1252")
    outcome = run("title", body, headers={"content-type": "text/html"})
    assert outcome.value == CAFE


def test_header_charset_wins_over_meta() -> None:
    body = '<meta charset="windows-1252"><title>Café</title>'.encode()
    assert run("title", body).value == "Café"


@pytest.mark.parametrize(
    ("body", "content_type", "text", "codec", "source"),
    [
        (b"\xef\xbb\xbf<p>x</p>", "text/html; charset=windows-1252", "<p>x</p>", "utf-8", "bom"),
        ("<p>é</p>".encode("utf-16"), "", "<p>é</p>", "utf-16le", "bom"),
        # an unknown label is no label; bytes that are not UTF-8 are windows-1252
        (b"<p>\xe9</p>", "text/html; charset=nonsense", "<p>é</p>", "windows-1252", "default"),
        (b"<p>\xe9</p>", "text/html; charset=rot13", "<p>é</p>", "windows-1252", "default"),
        (
            b'<meta charset="utf-16"><p>\xc3\xa9</p>',
            "",
            '<meta charset="utf-16"><p>é</p>',
            "utf-8",
            "prescan",
        ),
        (
            b"<!-- <meta charset=koi8-r> --><p>x</p>",
            "",
            "<!-- <meta charset=koi8-r> --><p>x</p>",
            "utf-8",
            "default",
        ),
        (b"", "", "", "utf-8", "default"),
    ],
)
def test_decode(body: bytes, content_type: str, text: str, codec: str, source: str) -> None:
    assert decode(body, content_type) == (text, codec, source)


@pytest.mark.parametrize(
    ("label", "codec", "text"),
    [
        ("windows-1251", "cp1251", "Новости дня"),
        ("shift_jis", "cp932", "今日のニュース"),
        ("gb2312", "gbk", "今日新闻"),
        ("euc-kr", "cp949", "오늘의 뉴스"),
    ],
)
def test_a_meta_charset_after_the_first_kilobyte_decodes_the_page_again(
    label: str, codec: str, text: str
) -> None:
    padding = "<!-- " + "x" * 2048 + " -->"
    page = f"<html><head>{padding}<meta charset={label}><title>{text}</title></head>"
    outcome = run("title", page.encode(codec), headers={"content-type": "text/html"})
    assert outcome.value == text
    assert run("charset", page.encode(codec), headers={"content-type": "text/html"}).passed


ODD_PAGES = [
    b"",
    b"   ",
    b"\x00\x01\x02\xff\xfe\xfd",
    b"<",
    b"<html><head><title>unclosed",
    b"</div></div><p><b><i>mis</b>nested</i></p></html></html>",
    b'<a href="http://[::1">bad ipv6</a><a href="http://x:99999999/">bad port</a>',
    b'<img src="http://[::1"><script src="http://x:port/a.js"></script>',
    b'<link rel="canonical" href="http://[::1"><a href="//" target="_blank">x</a>',
    b'<a href="https://other.org:bad/" target="_blank">x</a><a href="mailto:">m</a>',
    b'<html><frameset><frame src="a"></frameset><body>late</body></html>',
    b"<svg><style><script>x</script></style></svg><noscript><style>y</style></noscript>",
    b"<template><title>t</title><h1>h</h1></template>",
    "<title>\u202e\ud7ff emoji \U0001f600</title><p>caf\u00e9 \u2013 \u00fc</p>".encode(),
    b"<p>" + b"<div>" * 5000 + b"deep" + b"</div>" * 5000,
]


@pytest.mark.parametrize("body", ODD_PAGES)
@pytest.mark.parametrize("url", [URL, "not a url", "https://exa mple.com/a b", "http://[::1/"])
def test_odd_pages_never_raise(body: bytes, url: str) -> None:
    context = Context(make_site(body, url=url, headers={"content-type": "text/html; charset=x"}))
    for key, registered in CHECKS.items():
        outcome = registered.run(context)
        assert isinstance(outcome.passed, bool), key
        assert outcome.passed is (outcome.errors is None), key


# -- work that stays linear on hostile pages (timed by make bench: tests/bench/test_hostile.py)


def test_plaintext_email_is_linear_in_a_long_run_without_an_at_sign() -> None:
    outcome = run("plaintext_email", "<p>" + "a" * 100_000 + " @ a@b.org</p>")
    assert outcome.value == ["a@b.org"]


def test_image_format_reads_each_picture_once() -> None:
    html = "<picture>" + '<img src="a.jpg">' * 3_000 + '<source type="image/webp"></picture>'
    assert run("image_format", html).passed


def test_title_finds_svg_titles_without_walking_up_from_each() -> None:
    html = "<title>Page</title><svg>" + "<g>" * 5_000 + "<title>tip</title>" * 5_000
    assert run("title", html) == (True, "Page", None)


def test_content_keywords_looks_for_the_first_20_keywords_and_lists_them_all() -> None:
    words = [f"keyword{n}" for n in range(25)]
    title = f"<title>{' '.join(words)}</title>"
    outcome = run("content_keywords", f"{title}<body>{' '.join(words[:10])}</body>")
    assert outcome == (True, words, None)  # the report keeps 20 of them: analysis.bounded
    outcome = run("content_keywords", f"{title}<body>{' '.join(words[:9])}</body>")
    missing = ", ".join(words[9:20])
    assert outcome.errors == {"missing": f"Title words not in the page text: {missing}."}


def test_robots_reads_the_first_500_kib_as_google_does() -> None:
    late = "# padding\n" * (MAX_ROBOTS_BYTES // 10) + "User-agent: *\nDisallow: /\n"
    assert run("robots", robots=late).passed
    early = "User-agent: *\nDisallow: /\n" + "# padding\n" * (MAX_ROBOTS_BYTES // 10)
    assert not run("robots", robots=early).passed


def test_checks_list_every_value_found_the_report_cuts_them() -> None:
    outcome = run("headings", "<h1>heading</h1>" * 30)
    assert outcome.value == ["heading"] * 30
