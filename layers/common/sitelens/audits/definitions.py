"""The cross-page checks as people read of them: each code's severity, title, fix,
learn-more link, the sentence of its reason on a page and where on a page it looks. One
entry a check of `audits.checks`; the report checks' are in `seo.guidance`."""

from __future__ import annotations

from typing import NamedTuple

from sitelens.audits import duplicates
from sitelens.audits.facts import MAX_LINKS

_RICH = "https://developers.google.com/search/docs/appearance/structured-data"
_LLMS = "https://llmstxt.org/"

# simhash distance of near-duplicates by default (Manku et al., 2007): `audits.duplicates`
NEAR_DUPLICATE_BITS = duplicates.bits_of(duplicates.DEFAULT_SIMILARITY)
DEEP = 3  # link hops from the start URL beyond which a page is hard to find


class Definition(NamedTuple):
    """A cross-page check as people read of it: its severity, title, fix and learn-more
    link, the sentence of its `reason` on a page (`{detail}`: what it found there), and
    `where` on a page it looks."""

    severity: str
    title: str
    fix: str
    learn_more: str
    reason: str
    where: str


DEFINITIONS: dict[str, Definition] = {
    "broken_internal_link": Definition(
        "high",
        "Internal links to pages that fail (4xx, 5xx or unreachable)",
        "Link to a page that exists, or restore or redirect the missing one.",
        "https://developers.google.com/search/docs/crawling-indexing/http-network-errors",
        "An <a href> on this page links to {detail}, a page of the site that fails.",
        "a[href]",
    ),
    "broken_external_link": Definition(
        "medium",
        "External links to pages that fail (4xx, 5xx or unreachable)",
        "Update or remove links to external pages that no longer answer.",
        "https://developers.google.com/search/docs/crawling-indexing/links-crawlable",
        "An <a href> on this page links to {detail}, an external page that fails.",
        "a[href]",
    ),
    "redirect_loop": Definition(
        "high",
        "Redirect loops (or more than 10 redirects)",
        "Make the redirect end at a page that answers 200.",
        "https://developers.google.com/search/docs/crawling-indexing/301-redirects",
        "The URL's redirects never end: {detail}.",
        "Location header",
    ),
    "redirect_chain": Definition(
        "medium",
        "Redirect chains (two or more redirects)",
        "Redirect straight to the final URL, and link to it.",
        "https://developers.google.com/search/docs/crawling-indexing/301-redirects",
        "The URL takes {detail}; links should reach the final URL in one step.",
        "Location header",
    ),
    "duplicate_title": Definition(
        "medium",
        "Indexable pages sharing a title",
        "Give each page a title of its own.",
        "https://developers.google.com/search/docs/appearance/title-link",
        'Its <title> "{detail}" is the title of other indexable pages too.',
        "head > title",
    ),
    "duplicate_description": Definition(
        "low",
        "Indexable pages sharing a meta description",
        "Give each page a description of its own.",
        "https://developers.google.com/search/docs/appearance/snippet",
        'Its meta description "{detail}" is other indexable pages\' too.',
        'meta[name="description"]',
    ),
    "near_duplicate_content": Definition(
        "medium",
        "Pages with nearly the same text",
        "Merge the pages, or point the copies' canonical at the original.",
        "https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls",
        "Its text is nearly the same as another page's ({detail}).",
        "body",
    ),
    "canonical_to_error": Definition(
        "high",
        "Canonicals pointing at pages that do not answer 200",
        "Point the canonical at the page's final, working URL.",
        "https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls",
        'Its <link rel="canonical"> points at {detail}, which does not answer 200.',
        'link[rel="canonical"]',
    ),
    "canonical_to_noindex": Definition(
        "high",
        "Canonicals pointing at noindex pages",
        "Point the canonical at an indexable page, or remove the noindex.",
        "https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls",
        'Its <link rel="canonical"> points at {detail}, which is marked noindex.',
        'link[rel="canonical"]',
    ),
    "canonicalised": Definition(
        "low",
        "Pages whose canonical names another page (canonical clusters)",
        "Check that each page is meant to be a copy of its canonical.",
        "https://developers.google.com/search/docs/crawling-indexing/canonicalization",
        'Its <link rel="canonical"> names another page, {detail}.',
        'link[rel="canonical"]',
    ),
    "orphan_page": Definition(
        "medium",
        "Pages in the sitemap that no crawled page links to",
        "Link to the page from a related page, or take it out of the sitemap.",
        "https://developers.google.com/search/docs/crawling-indexing/links-crawlable",
        "The sitemap lists this page, but no crawled page links to it.",
        "sitemap.xml",
    ),
    "dead_end": Definition(
        "low",
        "Pages without links to other pages of the site",
        "Link to related pages of the site.",
        "https://developers.google.com/search/docs/crawling-indexing/links-crawlable",
        "The page has no <a href> to another page of the site.",
        "a[href]",
    ),
    "deep_page": Definition(
        "low",
        f"Pages more than {DEEP} clicks from the start URL",
        "Link to the page from pages closer to the home page.",
        "https://developers.google.com/search/docs/fundamentals/seo-starter-guide",
        "The page is {detail} from the start URL; keep pages within {deep} clicks.",
        "internal links",
    ),
    "sitemap_non_indexable": Definition(
        "medium",
        "Sitemap URLs that are noindex, blocked, redirected, non-canonical or failing",
        "List only the canonical, indexable URLs that answer 200 in the sitemap.",
        "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap",
        "The sitemap lists this URL, but it is {detail}.",
        "sitemap.xml",
    ),
    "hreflang_no_return": Definition(
        "medium",
        "hreflang alternates that do not link back",
        "Make every alternate list every other, including this page.",
        "https://developers.google.com/search/docs/specialty/international/localized-versions",
        "Its hreflang alternate {detail} does not link back to this page.",
        'link[rel="alternate"][hreflang]',
    ),
    "hreflang_invalid_code": Definition(
        "medium",
        "hreflang codes that are not valid language-region codes",
        "Use an ISO 639-1 language, optionally with an ISO 3166-1 region (de-AT).",
        "https://developers.google.com/search/docs/specialty/international/localized-versions",
        "Its hreflang code {detail}.",
        'link[rel="alternate"][hreflang]',
    ),
    "hreflang_no_self": Definition(
        "low",
        "hreflang sets that do not list the page itself",
        "Add the page's own alternate to its hreflang set.",
        "https://developers.google.com/search/docs/specialty/international/localized-versions",
        "Its hreflang alternates do not list the page itself.",
        'link[rel="alternate"][hreflang]',
    ),
    "hreflang_no_x_default": Definition(
        "low",
        "hreflang sets without x-default",
        "Add an x-default alternate for users of other languages.",
        "https://developers.google.com/search/docs/specialty/international/localized-versions",
        "Its hreflang alternates have no x-default.",
        'link[rel="alternate"][hreflang]',
    ),
    "too_many_links": Definition(
        "low",
        f"Pages with more than {MAX_LINKS} internal links",
        "Split the page, or link to fewer pages from it: search engines and readers weigh "
        "each of many links less.",
        "https://developers.google.com/search/docs/crawling-indexing/links-crawlable",
        "The page has {detail}; keep it to {max_links}.",
        "a[href]",
    ),
    "high_traffic_low_link_score": Definition(
        "medium",
        "Pages with much traffic and a weak internal link score",
        "Link to the page from strong pages of the site (the home page, hubs, menus).",
        "https://developers.google.com/search/docs/crawling-indexing/links-crawlable",
        "Visitors come ({detail}), but few pages of the site link to it.",
        "a[href] to this page",
    ),
    "mixed_content": Definition(
        "medium",
        "HTTPS pages loading resources over HTTP",
        "Load every image, script, stylesheet and frame over HTTPS.",
        "https://web.dev/articles/what-is-mixed-content",
        "The HTTPS page loads over plain HTTP: {detail}.",
        "img, script, link, iframe",
    ),
    "links_only_after_rendering": Definition(
        "medium",
        "Links only after rendering: pages whose links appear only once JavaScript runs",
        "Put the page's links and main content in its HTML (server-side or static "
        "rendering), or audit it with render: js to see what a rendering crawler sees.",
        "https://developers.google.com/search/docs/crawling-indexing/javascript/javascript-seo-basics",
        "{detail}",
        "a[href] after scripts run",
    ),
    # what pages carry and the host publishes (`content_checks`): each detail a sentence
    "structured_data_error": Definition(
        "medium",
        "Structured data errors (schema.org types and properties, Google's required properties)",
        "Fix each item the error names: a schema.org type, its properties, and every "
        "property its rich result requires.",
        f"{_RICH}/intro-structured-data",
        "{detail}",
        'script[type="application/ld+json"], [itemscope], [typeof]',
    ),
    "structured_data_warning": Definition(
        "low",
        "Structured data missing properties Google recommends",
        "Add the recommended property the warning names: richer results show it.",
        f"{_RICH}/search-gallery",
        "{detail}",
        'script[type="application/ld+json"], [itemscope], [typeof]',
    ),
    "image_broken": Definition(
        "high",
        "Broken images (4xx, 5xx or unreachable)",
        "Restore the image, or point the <img> at one that exists.",
        "https://developers.google.com/search/docs/appearance/google-images",
        "{detail}",
        "img[src]",
    ),
    "image_oversized": Definition(
        "medium",
        "Images much larger than they are shown",
        "Resize the image to at most twice its displayed size, or offer sizes in srcset.",
        "https://developer.chrome.com/docs/lighthouse/performance/uses-responsive-images",
        "{detail}",
        "img[width][height]",
    ),
    "image_legacy_format": Definition(
        "low",
        "Images served only as JPEG, PNG or GIF",
        "Offer an AVIF or WebP (a <picture> source, a srcset candidate, or by the Accept header).",
        "https://developer.chrome.com/docs/lighthouse/performance/uses-webp-images",
        "{detail}",
        "img[src], picture source",
    ),
    "llms_txt_missing": Definition(
        "low",
        "No llms.txt on the host",
        "Publish /llms.txt: a Markdown summary of the site with links to its key pages.",
        _LLMS,
        "{detail}",
        "/llms.txt",
    ),
    "llms_txt_malformed": Definition(
        "low",
        "llms.txt not written as llmstxt.org describes",
        "Begin with one H1 title, then an optional blockquote, then H2 sections of "
        "Markdown link lists: - [name](url): notes.",
        _LLMS,
        "{detail}",
        "/llms.txt",
    ),
    "llms_txt_broken_link": Definition(
        "medium",
        "llms.txt links to pages that fail (4xx, 5xx or unreachable)",
        "Update or remove the links of llms.txt that no longer answer.",
        _LLMS,
        "{detail}",
        "/llms.txt",
    ),
}


def reason(code: str, detail: str) -> str:
    """The sentence of a cross-page check's finding on a page (its `detail` there)."""
    return DEFINITIONS[code].reason.format(
        detail=detail, bits=NEAR_DUPLICATE_BITS, deep=DEEP, max_links=MAX_LINKS
    )
