"""Baseline: the same 40 checks as `sitelens.seo.checks`, written the way BeautifulSoup-based
SEO analyzers write them: decode the body, one `BeautifulSoup(html, "html.parser")`, then
`find_all` / `get_text` per check, and the visible text after decomposing script and style.

It is compact rather than exhaustive (fewer edge cases than ours), never slower on purpose:
one parse shared by every check, and the text-only checks run last on the same tree.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit
from urllib.robotparser import RobotFileParser

from bs4 import BeautifulSoup, Tag

from sitelens.seo.page import Site

STOP_WORDS = {
    "the", "and", "for", "with", "from", "into", "about", "your", "you", "our", "are",
    "was", "were", "this", "that", "these", "those", "how", "what", "why", "when", "where",
    "who", "which", "not", "all", "any", "can", "has", "have", "its", "will", "more",
    "most", "than", "then", "there", "their", "they", "but", "out", "over", "some", "such",
    "only", "very", "also", "home", "page", "welcome", "official",
}  # fmt: skip
GENERIC = {
    "click here", "click this", "click", "here", "right here", "read more", "more",
    "learn more", "see more", "more info", "more information", "information", "link",
    "this link", "this", "this page", "go", "start", "continue",
}  # fmt: skip
DEPRECATED = (
    "acronym", "applet", "basefont", "big", "blink", "center", "dir", "font", "frame",
    "frameset", "marquee", "noframes", "strike", "tt",
)  # fmt: skip
SOCIAL = {
    "facebook.com", "fb.com", "x.com", "twitter.com", "instagram.com", "linkedin.com",
    "youtube.com", "youtu.be", "tiktok.com", "pinterest.com", "github.com", "threads.net",
    "bsky.app", "reddit.com", "t.me", "whatsapp.com", "tumblr.com", "twitch.tv",
}  # fmt: skip
ROBOTS_DIRECTIVES = {
    "user-agent", "allow", "disallow", "sitemap", "crawl-delay", "clean-param", "host",
    "request-rate", "visit-time", "noindex",
}  # fmt: skip
JS_TYPES = {"", "text/javascript", "application/javascript", "module"}
EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
VERSION = re.compile(r"\bv?\d+(?:\.\d+)+\b|/\s*v?\d+\b")
LANGUAGE_TAG = re.compile(r"[a-z]{2,3}(?:-[a-z]{4})?(?:-(?:[a-z]{2}|[0-9]{3}))?", re.I)


def _rel(tag: Tag) -> list[str]:
    value = tag.get("rel") or []
    return [v.lower() for v in (value if isinstance(value, list) else value.split())]


def _text(tag: Tag) -> str:
    return " ".join(tag.get_text(" ").split())


def _meta(soup: BeautifulSoup, name: str) -> list[Tag]:
    return soup.find_all("meta", attrs={"name": re.compile(f"^{name}$", re.I)})


def analyse(site: Site) -> dict[str, dict[str, Any]]:
    """{check: {"passed": bool, "value": ...}} for every check, like a report's results."""
    page = site.page
    content_type = page.headers.get("content-type", "")
    charset_match = re.search(r"charset=([\w-]+)", content_type)
    html = page.body.decode(charset_match.group(1) if charset_match else "utf-8", "replace")
    soup = BeautifulSoup(html, "html.parser")
    url = page.url
    parts = urlsplit(url)
    out: dict[str, dict[str, Any]] = {}

    def add(key: str, passed: Any, value: Any) -> None:
        out[key] = {"passed": bool(passed), "value": value}

    def absolute(href: str) -> str:
        return urljoin(url, href.strip())

    # seo
    titles = [t for t in soup.find_all("title") if not t.find_parent("svg")]
    title = _text(titles[0]) if titles else None
    add("title", title and len(title) <= 60 and len(titles) == 1, title)
    description = _meta(soup, "description")
    content = " ".join(description[0].get("content", "").split()) if description else None
    add("meta_description", content, content)
    h1s = [_text(h) for h in soup.find_all("h1")]
    same = title and any(h.casefold() == title.casefold() for h in h1s)
    add("headings", len(h1s) == 1 and not same, h1s[:20])
    images = soup.find_all("img")
    bare = [absolute(img.get("src", "")) for img in images if not img.get("alt", "").strip()]
    add("image_keywords", not bare, bare[:20])
    path = unquote(parts.path)
    friendly = (
        path == path.lower()
        and "_" not in path
        and " " not in path
        and len(parts.path) + len(parts.query) <= 100
        and len([p for p in parts.query.split("&") if p]) <= 2
    )
    add("seo_friendly_url", friendly, url)
    add("404_page", site.missing_page_status == 404, site.missing_page_status)
    robots_parser = None
    if site.robots_txt is not None and 200 <= site.robots_txt.status < 300:
        robots_parser = RobotFileParser()
        robots_parser.parse(site.robots_txt.body.decode("utf-8", "replace").splitlines())
    allowed = {
        agent: robots_parser is None or robots_parser.can_fetch(agent, url)
        for agent in ("*", "Sitelens")
    }
    add("robots", all(allowed.values()), allowed)
    invalid = []
    if robots_parser is not None:  # a line must be a known "directive: value"
        for number, raw in enumerate(site.robots_txt.body.decode("utf-8", "replace").splitlines()):
            line = raw.split("#", 1)[0].strip()
            name, colon, _ = line.partition(":")
            if line and (not colon or name.strip().lower() not in ROBOTS_DIRECTIVES):
                invalid.append(f"line {number + 1}: {line}")
    unavailable = site.robots_txt is not None and site.robots_txt.status >= 500
    add("robots_txt", not invalid and not unavailable, invalid[:20])
    noindex = [
        name
        for name in ("robots", "googlebot")
        for tag in _meta(soup, name)
        if {"noindex", "none"} & set(re.split(r"[\s,:]+", tag.get("content", "").lower()))
    ]
    if "noindex" in page.headers.get("x-robots-tag", "").lower():
        noindex.append("X-Robots-Tag")
    add("noindex", not noindex, noindex)
    links = soup.find_all("a", href=True)
    add("in_page_links", len(links) <= 150, len(links))
    lang = soup.html.get("lang") if soup.html else None
    add("language", lang, lang)
    icons = [link for link in soup.find_all("link", href=True) if "icon" in _rel(link)]
    add("favicon", icons, absolute(icons[0]["href"]) if icons else None)
    canonicals = [link for link in soup.find_all("link", href=True) if "canonical" in _rel(link)]
    canonical = canonicals[0]["href"] if canonicals else None
    add("canonical", canonical and urlsplit(canonical).scheme in ("http", "https"), canonical)
    codes = [link["hreflang"] for link in soup.find_all("link", hreflang=True)]
    bad_codes = [c for c in codes if c.lower() != "x-default" and not LANGUAGE_TAG.fullmatch(c)]
    add("hreflang", not bad_codes, codes)
    generic = [t for t in (_text(a) for a in links) if t.lower().strip(" .»→") in GENERIC]
    add("link_text", not generic, generic[:20])
    uncrawlable = [
        a["href"] for a in links if a["href"] in ("", "#") or a["href"].startswith("javascript:")
    ]
    add("crawlable_anchors", not uncrawlable, uncrawlable[:20])
    add("http_status_code", 200 <= page.status < 300, page.status)

    # performance
    encoding = page.content_encoding.lower()
    add("text_compression", encoding in ("gzip", "br", "zstd", "deflate"), encoding)
    add("load_time", page.elapsed < 2, round(page.elapsed, 2))
    add("page_size", len(page.body) < 330_000, len(page.body))
    resources: dict[str, set[str]] = {
        "scripts": {absolute(s["src"]) for s in soup.find_all("script", src=True)},
        "stylesheets": {
            absolute(link["href"])
            for link in soup.find_all("link", href=True)
            if "stylesheet" in _rel(link)
        },
        "images": {absolute(i["src"]) for i in soup.find_all("img", src=True)}
        | {absolute(i["src"]) for i in soup.find_all("input", type="image", src=True)},
        "frames": {absolute(f["src"]) for f in soup.find_all(["iframe", "frame"], src=True)},
        "media": {
            absolute(m["src"])
            for m in soup.find_all(["video", "audio", "source", "track"], src=True)
        },
        "objects": {absolute(e["src"]) for e in soup.find_all("embed", src=True)}
        | {absolute(o["data"]) for o in soup.find_all("object", data=True)},
    }
    counts = {kind: len(urls) for kind, urls in resources.items()}
    add("http_requests", sum(counts.values()) <= 50, counts)
    legacy = []
    for img in images:
        src = absolute(img.get("src", ""))
        picture = img.find_parent("picture")
        modern_source = picture and picture.find(
            "source", type=re.compile("image/(avif|webp)", re.I)
        )
        if not re.search(r"\.(avif|webp|svg)(\?|#|$)", src, re.I) and not modern_source:
            legacy.append(src)
    add("image_format", not legacy, legacy[:20])
    blocking = [
        absolute(s["src"])
        for s in soup.find_all("script", src=True)
        if not s.has_attr("defer")
        and not s.has_attr("async")
        and s.get("type", "").lower() in JS_TYPES - {"module"}
    ]
    add("defer_javascript", not blocking, blocking[:20])
    elements = len(soup.find_all(True))
    add("dom_size", elements <= 1500, elements)

    # security
    add("https_encryption", parts.scheme == "https", parts.scheme)
    insecure = [u for urls in resources.values() for u in urls if u.startswith("http:")]
    add("mixed_content", parts.scheme != "https" or not insecure, insecure[:20])
    signatures = {h: page.headers[h] for h in ("server", "x-powered-by") if h in page.headers}
    add("server_signature", not any(VERSION.search(v) for v in signatures.values()), signatures)
    unsafe = [
        absolute(a["href"])
        for a in soup.find_all(["a", "area"], href=True, target=re.compile("^_blank$", re.I))
        if not {"noopener", "noreferrer"} & set(_rel(a))
        and urlsplit(absolute(a["href"])).netloc not in ("", parts.netloc)
    ]
    add("unsafe_cross_origin_links", not unsafe, unsafe[:20])

    # miscellaneous
    metas = soup.find_all("meta")
    keys = [(m.get("property") or m.get("name") or "").lower() for m in metas]
    structured = [
        name
        for name, present in (
            ("open_graph", any(k.startswith("og:") for k in keys)),
            ("twitter_card", any(k.startswith("twitter:") for k in keys)),
            ("json_ld", soup.find("script", type="application/ld+json") is not None),
        )
        if present
    ]
    add("structured_data", structured, structured)
    # rich results, as such analyzers check them: every JSON-LD block parses and names a type
    broken = []
    for script in soup.find_all("script", type="application/ld+json"):
        try:
            item = json.loads(script.get_text() or "null")
        except ValueError:
            broken.append("unparsable JSON-LD")
            continue
        items = item if isinstance(item, list) else [item]
        broken += [
            "an item without @type" for i in items if not isinstance(i, dict) or "@type" not in i
        ]
    add("rich_results", not broken, broken)
    viewport = _meta(soup, "viewport")
    viewport_content = viewport[0].get("content", "") if viewport else None
    add("meta_viewport", viewport_content and "width" in viewport_content, viewport_content)
    charset = charset_match.group(1) if charset_match else None
    if not charset:
        meta_charset = soup.find("meta", charset=True)
        charset = meta_charset["charset"] if meta_charset else None
    add("charset", charset, charset)
    sitemaps = (robots_parser.site_maps() if robots_parser else None) or []
    add("sitemap", sitemaps, sitemaps)
    networks = []
    for a in links:
        host = (urlsplit(a["href"]).hostname or "").removeprefix("www.")
        if host in SOCIAL and host not in networks:
            networks.append(host)
    add("social", networks, networks)
    styled = [tag.name for tag in soup.find_all(style=True) if tag["style"].strip()]
    add("inline_css", not styled, styled[:20])
    deprecated = [name for name in DEPRECATED if soup.find(name)]
    add("deprecated_html_tags", not deprecated, deprecated)

    # the visible text, last: decomposing changes the tree the other checks read
    mailtos = [unquote(a["href"][7:]) for a in links if a["href"].lower().startswith("mailto:")]
    for hidden in soup(["script", "style", "noscript", "template"]):
        hidden.decompose()
    text = " ".join(soup.body.get_text(" ").split()) if soup.body else ""
    folded = text.casefold()
    wanted = [
        w
        for w in dict.fromkeys(re.findall(r"[^\W_]+(?:'[^\W_]+)*", (title or "").casefold()))
        if len(w) >= 3 and w not in STOP_WORDS
    ]
    missing = [w for w in wanted if not re.search(rf"(?<!\w){re.escape(w)}(?!\w)", folded)]
    add("content_keywords", wanted and not missing, wanted)
    emails = EMAIL.findall(text) + mailtos
    add("plaintext_email", not emails, emails[:20])
    words = len(text.split())
    add("content_length", words >= 500, words)
    ratio = round(100 * len(text) / len(html), 2) if html else 0
    add("text_html_ratio", ratio >= 10, ratio)
    return out
