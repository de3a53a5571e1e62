"""What to do about each failed check: a one-line fix and a link to the standard it
applies (Google Search Central, web.dev and Chrome's Lighthouse docs, MDN, the RFC or
the spec), as Lighthouse's "learn more" links do. One entry per check of `CHECKS` and
`FIELD_CHECKS`, with its title and where it looks; a report's failed results carry theirs
(`advised`), and so do audits' `page_<check>` issues and their reasons."""

from __future__ import annotations

from typing import Any, NamedTuple


class Advice(NamedTuple):
    """A failed check's fix and learn-more link, and how people read of it: its `title`
    (instead of its code, wherever a person reads) and `where` on a page it looks (a
    selector, a header or a file), which an audit's reasons name."""

    fix: str
    learn_more: str
    title: str
    where: str


_SEARCH = "https://developers.google.com/search/docs"
_LIGHTHOUSE = "https://developer.chrome.com/docs/lighthouse"

ADVICE: dict[str, Advice] = {
    "title": Advice(
        "Give the page one unique, descriptive <title> of at most about 60 characters.",
        f"{_SEARCH}/appearance/title-link",
        "Title missing, empty, too long or repeated",
        "head > title",
    ),
    "meta_description": Advice(
        "Add one <meta name=description> of 10 to 320 characters that summarises the page.",
        f"{_SEARCH}/appearance/snippet",
        "Meta description missing, empty, too short or too long",
        'meta[name="description"]',
    ),
    "headings": Advice(
        "Use exactly one <h1> that names the page's topic, in other words than the title.",
        "https://web.dev/articles/headings-and-landmarks",
        "Not exactly one <h1>, or the <h1> repeats the title",
        "h1",
    ),
    "content_keywords": Advice(
        "Write body text that uses the words of the title, so the page delivers what it says.",
        f"{_SEARCH}/fundamentals/creating-helpful-content",
        "Title words missing from the page text",
        "body",
    ),
    "image_keywords": Advice(
        'Give every meaningful <img> an alt text, and decorative ones alt="".',
        f"{_SEARCH}/appearance/google-images",
        "Images without alt text",
        "img:not([alt])",
    ),
    "seo_friendly_url": Advice(
        "Use short, readable URLs of lower-case words joined by hyphens, without session ids.",
        f"{_SEARCH}/crawling-indexing/url-structure",
        "URL hard to read (long, upper-case, underscores or session ids)",
        "the page's URL",
    ),
    "404_page": Advice(
        "Answer URLs that do not exist with the status 404 (or 410), not 200.",
        f"{_SEARCH}/crawling-indexing/http-network-errors",
        "Missing pages not answered with 404",
        "the site's 404 page",
    ),
    "robots": Advice(
        "Remove the robots.txt Disallow rule that blocks search engines from this page.",
        "https://www.rfc-editor.org/rfc/rfc9309",
        "Page blocked by robots.txt",
        "/robots.txt",
    ),
    "robots_txt": Advice(
        "Fix the invalid robots.txt lines (unknown directives, rules before a User-agent).",
        f"{_SEARCH}/crawling-indexing/robots/robots_txt",
        "Invalid robots.txt lines",
        "/robots.txt",
    ),
    "noindex": Advice(
        "Remove noindex from the robots meta tag and X-Robots-Tag if the page should be found.",
        f"{_SEARCH}/crawling-indexing/block-indexing",
        "Page marked noindex",
        'meta[name="robots"], X-Robots-Tag',
    ),
    "in_page_links": Advice(
        "Keep the page to at most 150 links; link to the rest from pages of their own.",
        f"{_SEARCH}/crawling-indexing/links-crawlable",
        "Too many links on the page",
        "a[href]",
    ),
    "language": Advice(
        'Declare the page\'s language on the root element, e.g. <html lang="en">.',
        "https://developer.mozilla.org/en-US/docs/Web/HTML/Global_attributes/lang",
        "Page language not declared",
        "html[lang]",
    ),
    "favicon": Advice(
        'Add <link rel="icon" href="/favicon.ico"> (a square image of 48 px or more).',
        f"{_SEARCH}/appearance/favicon-in-search",
        "No favicon declared",
        'link[rel="icon"]',
    ),
    "canonical": Advice(
        'Declare one absolute canonical URL with <link rel="canonical"> or a Link header.',
        f"{_SEARCH}/crawling-indexing/consolidate-duplicate-urls",
        "Canonical URL missing, repeated or invalid",
        'link[rel="canonical"], Link header',
    ),
    "hreflang": Advice(
        "Use valid language(-region) codes or x-default in hreflang, with absolute URLs.",
        f"{_SEARCH}/specialty/international/localized-versions",
        "Invalid hreflang alternates",
        'link[rel="alternate"][hreflang]',
    ),
    "link_text": Advice(
        'Replace link texts like "click here" with words that say where the link goes.',
        f"{_LIGHTHOUSE}/seo/link-text",
        "Links with texts that do not say where they go",
        "a[href]",
    ),
    "crawlable_anchors": Advice(
        "Make every <a> a real link with an href to a URL, not a javascript: handler.",
        f"{_SEARCH}/crawling-indexing/links-crawlable",
        "Links search engines cannot follow",
        "a",
    ),
    "http_status_code": Advice(
        "Serve the page with a 2xx status, or link to its new address instead.",
        f"{_SEARCH}/crawling-indexing/http-network-errors",
        "Page answered with an error status",
        "the HTTP status",
    ),
    "text_compression": Advice(
        "Serve HTML, CSS and JavaScript compressed with gzip, Brotli or zstd.",
        f"{_LIGHTHOUSE}/performance/uses-text-compression",
        "HTML, CSS or JavaScript served uncompressed",
        "Content-Encoding header",
    ),
    "load_time": Advice(
        "Make the server answer faster (caching, a CDN, less work per request): under 2 s.",
        "https://web.dev/articles/ttfb",
        "Slow server response",
        "the HTTP response",
    ),
    # field data only (`FIELD_CHECKS`): judged on real visits' vitals
    "interaction_to_next_paint": Advice(
        "Answer clicks and key presses sooner: break up long tasks, do less work per input.",
        "https://web.dev/articles/inp",
        "Slow responses to clicks and key presses (INP)",
        "real visits",
    ),
    "cumulative_layout_shift": Advice(
        "Reserve room for images, embeds and ads (width and height) so content does not move.",
        "https://web.dev/articles/cls",
        "Content that moves while loading (CLS)",
        "real visits",
    ),
    "page_size": Advice(
        "Cut the HTML below 330 KB: move inline data, scripts and styles out, paginate lists.",
        f"{_LIGHTHOUSE}/performance/total-byte-weight",
        "HTML too large",
        "the HTML document",
    ),
    "http_requests": Advice(
        "Load at most 50 resources: bundle scripts and styles, drop unused ones, lazy-load.",
        f"{_LIGHTHOUSE}/performance/resource-summary",
        "Too many resources loaded",
        "img, script, link, iframe",
    ),
    "image_format": Advice(
        "Serve images as AVIF or WebP (or SVG for drawings), with <picture> fallbacks.",
        f"{_LIGHTHOUSE}/performance/uses-webp-images",
        "Images in legacy formats",
        "img[src]",
    ),
    "defer_javascript": Advice(
        "Load external scripts with defer, async or type=module so they do not block rendering.",
        f"{_LIGHTHOUSE}/performance/render-blocking-resources",
        "Render-blocking scripts",
        "script[src]",
    ),
    "dom_size": Advice(
        "Keep the page under 1,500 elements: remove wrappers, render long lists in pages.",
        f"{_LIGHTHOUSE}/performance/dom-size",
        "Too many HTML elements",
        "the DOM",
    ),
    "https_encryption": Advice(
        "Serve the page over HTTPS and redirect http:// to https:// with a 301.",
        "https://web.dev/articles/why-https-matters",
        "Page not served over HTTPS",
        "the page's URL",
    ),
    "mixed_content": Advice(
        "Load every resource of the HTTPS page over https:// too.",
        "https://web.dev/articles/what-is-mixed-content",
        "Resources loaded over HTTP on an HTTPS page",
        "img, script, link, iframe",
    ),
    "server_signature": Advice(
        "Remove version numbers from the Server and X-Powered-By headers.",
        "https://cheatsheetseries.owasp.org/cheatsheets/HTTP_Headers_Cheat_Sheet.html",
        "Server software version exposed",
        "Server, X-Powered-By headers",
    ),
    "unsafe_cross_origin_links": Advice(
        'Add rel="noopener" (or noreferrer) to links that open another site in a new tab.',
        f"{_LIGHTHOUSE}/best-practices/external-anchors-use-rel-noopener",
        'Links to other sites opened without rel="noopener"',
        'a[target="_blank"]',
    ),
    "plaintext_email": Advice(
        "Replace visible email addresses with a contact form, so harvesters cannot read them.",
        "https://owasp.org/www-community/attacks/Email_Harvesting",
        "Email addresses visible to harvesters",
        "body",
    ),
    "structured_data": Advice(
        "Describe the page with JSON-LD structured data, Open Graph or Twitter card tags.",
        f"{_SEARCH}/appearance/structured-data/intro-structured-data",
        "No structured data",
        'script[type="application/ld+json"], meta[property^="og:"]',
    ),
    "rich_results": Advice(
        "Use schema.org's types and properties; add each property Google requires.",
        f"{_SEARCH}/appearance/structured-data/search-gallery",
        "Structured data with errors",
        'script[type="application/ld+json"], [itemscope], [typeof]',
    ),
    "meta_viewport": Advice(
        'Add <meta name="viewport" content="width=device-width, initial-scale=1">.',
        f"{_LIGHTHOUSE}/best-practices/viewport",
        "No mobile viewport declared",
        'meta[name="viewport"]',
    ),
    "charset": Advice(
        'Declare the encoding in the Content-Type header or with <meta charset="utf-8">.',
        f"{_LIGHTHOUSE}/best-practices/charset",
        "Character encoding not declared",
        "Content-Type header, meta[charset]",
    ),
    "sitemap": Advice(
        "Publish a sitemap and declare it in robots.txt with a Sitemap: line.",
        f"{_SEARCH}/crawling-indexing/sitemaps/build-sitemap",
        "No sitemap declared",
        "/robots.txt, /sitemap.xml",
    ),
    "social": Advice(
        "Link to the site's profiles on social networks, e.g. in the footer.",
        "https://ogp.me/",
        "No links to social profiles",
        "a[href]",
    ),
    "content_length": Advice(
        "Give the page enough text of its own (500 words or more) to answer its topic.",
        f"{_SEARCH}/fundamentals/creating-helpful-content",
        "Too little text",
        "body",
    ),
    "text_html_ratio": Advice(
        "Make visible text at least 10% of the HTML: trim markup, inline scripts and styles.",
        f"{_LIGHTHOUSE}/performance/total-byte-weight",
        "Little text for the size of the HTML",
        "body",
    ),
    "inline_css": Advice(
        "Move style= attributes into a stylesheet and style elements by class.",
        "https://developer.mozilla.org/en-US/docs/Web/HTML/Global_attributes/style",
        "Inline styles",
        "[style]",
    ),
    "deprecated_html_tags": Advice(
        "Replace obsolete tags such as <font>, <center> and <marquee> with CSS.",
        "https://html.spec.whatwg.org/multipage/obsolete.html",
        "Obsolete HTML tags",
        "font, center, marquee",
    ),
}


# A check judged by real visits (`"source": "field"`) whose fix is not its lab one's
FIELD_ADVICE: dict[str, Advice] = {
    "load_time": Advice(
        "Show the largest element sooner: a faster server, a preloaded hero image, "
        "less blocking CSS.",
        "https://web.dev/articles/lcp",
        "Slow largest paint on real visits (LCP)",
        "real visits",
    ),
}


def advised(results: dict[str, Any]) -> dict[str, Any]:
    """A report's results with each failed check's `fix` and `learn_more` added (a field
    verdict's own where it has one: `FIELD_ADVICE`)."""
    shown = {}
    for key, result in results.items():
        advice = ADVICE.get(key)
        if result.get("source") == "field":
            advice = FIELD_ADVICE.get(key, advice)
        if not result["passed"] and advice is not None:
            result = {**result, "fix": advice.fix, "learn_more": advice.learn_more}
        shown[key] = result
    return shown
