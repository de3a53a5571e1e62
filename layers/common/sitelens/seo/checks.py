"""The SEO checks: one small pure function per check, all sharing one parsed page.

Each check takes a `Context` and returns an `Outcome` (`passed`, `value`, `errors`).
`@check(key, importance, category)` registers it in `CHECKS`, in definition order,
which is the order of a report's `results`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property, lru_cache
from typing import Literal, NamedTuple, TypeAlias
from urllib.parse import SplitResult, unquote, urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from sitelens.seo import encoding, indexing, link_texts, links, robots, text
from sitelens.seo.encoding import charset_in
from sitelens.seo.page import Site

Importance: TypeAlias = Literal["high", "medium", "low"]
Category: TypeAlias = Literal["seo", "performance", "security", "miscellaneous"]
JSON: TypeAlias = str | int | float | bool | Sequence["JSON"] | Mapping[str, "JSON"] | None
Errors: TypeAlias = dict[str, str]

MAX_KEYWORDS = 20  # title words looked for: a 60-character title has at most 15

# Search results show a title up to about 600 px of 20 px Arial (Google's desktop layout)
MAX_TITLE_PX = 600
MIN_DESCRIPTION = 10  # characters: shorter says nothing (Lighthouse only asks for non-empty)
MAX_DESCRIPTION = 320  # characters: the longest snippets search results show, on two lines
MIN_KEYWORD_SHARE = 0.5  # of the title's keywords found in the text: titles also summarise
MAX_LINKS = 150
MAX_LOAD_TIME = 2.0  # seconds
MAX_PAGE_SIZE = 330_000  # bytes
MAX_REQUESTS = 50
MAX_ELEMENTS = 1_500
MIN_WORDS = 500
MIN_TEXT_RATIO = 10.0  # percent
MAX_URL_LENGTH = 100  # characters of path and query
MAX_QUERY_PARAMETERS = 2


class Outcome(NamedTuple):
    """What one check found: whether it passed, what it saw and why it failed."""

    passed: bool
    value: JSON
    errors: Errors | None


def verdict(value: JSON, errors: Errors) -> Outcome:
    """An outcome that passes exactly when there are no errors."""
    return Outcome(not errors, value, errors or None)


@dataclass(frozen=True)
class Check:
    """A registered check."""

    key: str
    importance: Importance
    category: Category
    run: Callable[[Context], Outcome]


CHECKS: dict[str, Check] = {}


def check(
    key: str, importance: Importance, category: Category
) -> Callable[[Callable[[Context], Outcome]], Callable[[Context], Outcome]]:
    """Register the decorated function in `CHECKS` under `key`."""

    def register(run: Callable[[Context], Outcome]) -> Callable[[Context], Outcome]:
        if key in CHECKS:
            raise ValueError(f"duplicate check {key!r}")
        CHECKS[key] = Check(key, importance, category, run)
        return run

    return register


# --- The shared context -----------------------------------------------------------------

_DEPRECATED_TAGS = (
    "acronym",
    "applet",
    "basefont",
    "big",
    "blink",
    "center",
    "dir",
    "font",
    "frame",
    "frameset",
    "marquee",
    "noframes",
    "strike",
    "tt",
)
# every tag a check reads; one traversal of the tree collects them all
_COLLECTED = (
    "html",
    "a",
    "title",
    "meta",
    "link",
    "img",
    "input",
    "script",
    "iframe",
    "video",
    "audio",
    "source",
    "track",
    "embed",
    "object",
    "h1",
    "svg",
    *_DEPRECATED_TAGS,
)
# the outermost of these only: decomposing a node frees its descendants
_HIDDEN = ":is(script, style, noscript, template):not(:is(script, style, noscript, template) *)"
# (kind, tags, attribute holding the URL, required (attribute, token)) of what a browser
# fetches to show the page
_RESOURCES: tuple[tuple[str, tuple[str, ...], str, tuple[str, str] | None], ...] = (
    ("scripts", ("script",), "src", None),
    ("stylesheets", ("link",), "href", ("rel", "stylesheet")),
    ("images", ("img",), "src", None),
    ("images", ("input",), "src", ("type", "image")),
    ("frames", ("iframe", "frame"), "src", None),
    ("media", ("video", "audio", "source", "track"), "src", None),
    ("media", ("video",), "poster", None),
    ("objects", ("embed",), "src", None),
    ("objects", ("object",), "data", None),
)
_RESOURCE_KINDS = tuple(dict.fromkeys(kind for kind, *_ in _RESOURCES))


class _Walk(NamedTuple):
    by_tag: dict[str, list[LexborNode]]  # the `_COLLECTED` tags
    elements: int


class Link(NamedTuple):
    """An `<a href>`: the node and its href as written, stripped."""

    node: LexborNode
    href: str


def _text(node: LexborNode) -> str:
    # a separator keeps "<br>"-split words apart; split/join collapses the whitespace
    return " ".join(node.text(separator=" ").split())


def _attr(node: LexborNode, name: str) -> str:
    """The attribute's value, stripped ("" when absent or valueless)."""
    return node.attrs.sget(name).strip()


def _has_token(node: LexborNode, attribute: str, token: str) -> bool:
    """Whether a space-separated attribute (rel, type, ...) holds `token`, ignoring case."""
    return token in node.attrs.sget(attribute).lower().split()


def _split(url: str) -> SplitResult | None:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return None
    return parts


def _authority(url: str) -> str:
    """The host[:port] part of an absolute or `//host` URL, by string splitting only."""
    rest = url.split("//", 1)[1] if "//" in url else ""
    return rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]


def _origin(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an http(s) URL, or None."""
    scheme = url.split(":", 1)[0].lower()
    return _origin_of(scheme, _authority(url)) if scheme in ("http", "https") else None


@lru_cache(maxsize=1024)  # pages link to the same few hosts over and over
def _origin_of(scheme: str, authority: str) -> tuple[str, str, int] | None:
    parts = _split(f"{scheme}://{authority}/")
    if parts is None:
        return None
    return scheme, (parts.hostname or ""), parts.port or (443 if scheme == "https" else 80)


def _is_http(url: str) -> bool:
    return url[:8].lower().startswith(("http://", "https://"))


def _distinct(items: Iterable[str]) -> list[str]:
    """The items in order, each once (the report keeps the first ones: `analysis.bounded`)."""
    return list(dict.fromkeys(items))


def _shown(url: str) -> str:
    # a data: URI can be megabytes of base64; its media type is what a reader needs
    return url.split(",", 1)[0] + ",…" if url[:5].lower() == "data:" else url


class Context:
    """One page decoded and parsed once, with the facts several checks share.

    Derived facts are computed on first use and cached, so a check that is not run
    costs nothing and no fact is computed twice.
    """

    def __init__(self, site: Site, now: datetime | None = None) -> None:
        self.site = site
        self.now = now or datetime.now(UTC)  # for `unavailable_after` dates
        self.page = site.page
        self.url = site.page.url
        self.headers = site.page.headers
        content_type = self.headers.get("content-type", "")
        self.header_charset = charset_in(content_type)
        decoded = encoding.decode(site.page.body, content_type)
        # scripting on: <noscript> is parsed as a browser running scripts does
        self.tree = LexborHTMLParser(decoded.text, scripting=True)
        if decoded.source == "default":  # a <meta> charset past the prescan decodes again
            late = next(
                (found for node in self.css("meta") if (found := _meta_charset(node))), None
            )
            again = encoding.redecoded(site.page.body, decoded, late)
            if again is not None:
                decoded = again
                self.tree = LexborHTMLParser(decoded.text, scripting=True)
        self.html, self.encoding = decoded.text, decoded.encoding

    def css(self, selector: str) -> list[LexborNode]:
        """The nodes matching a CSS selector, in document order."""
        return self.tree.css(selector)

    def tags(self, *names: str) -> list[LexborNode]:
        """The elements with these tag names (collected ones only), in document order per tag."""
        by_tag = self._walk.by_tag
        if len(names) == 1:
            return by_tag[names[0]]
        return [node for name in names for node in by_tag[name]]

    @property
    def element_count(self) -> int:
        """How many elements the document has."""
        return self._walk.elements

    @cached_property
    def _walk(self) -> _Walk:
        # one walk in document order: cheaper than a selector pass per tag
        by_tag: dict[str, list[LexborNode]] = {name: [] for name in _COLLECTED}
        elements = 0
        root = self.tree.root
        for node in root.traverse() if root is not None else ():
            tag = node.tag or "-"
            if tag in by_tag:
                by_tag[tag].append(node)
            if tag[0] != "-":  # "-comment" and the like are not elements
                elements += 1
        return _Walk(by_tag, elements)

    def meta(self, name: str) -> list[LexborNode]:
        """The `<meta name=...>` elements with this name, ignoring case."""
        return [node for node in self.tags("meta") if _attr(node, "name").lower() == name]

    def link_rel(self, token: str) -> list[LexborNode]:
        """The `<link>` elements whose rel holds `token`."""
        return [node for node in self.tags("link") if _has_token(node, "rel", token)]

    @cached_property
    def link_targets(self) -> list[links.LinkTarget]:
        """`<link>` elements of `<head>` (search engines ignore those of `<body>`), then the
        `Link:` response headers."""
        found = [
            links.LinkTarget(
                href=_attr(node, "href"),
                rels=frozenset(node.attrs.sget("rel").lower().split()),
                hreflang=node.attrs.get("hreflang"),
                source="head",
            )
            for node in self.css("head link")
        ]
        return found + links.header_links(self.page.lines("link"))

    def text_of_id(self, element_id: str) -> str:
        """The text of the element with this id ("" when there is none)."""
        return self._texts_by_id.get(element_id, "")

    @cached_property
    def _texts_by_id(self) -> dict[str, str]:
        return {
            node.attrs.sget("id"): _text(node) for node in self.css("[id]") if node.attrs.sget("id")
        }

    def language_of(self, node: LexborNode) -> str:
        """The language of an element: the `lang` of it or its nearest ancestor ("" when
        none declares one), as a browser finds it."""
        current: LexborNode | None = node
        while current is not None:
            lang = current.attrs.sget("lang").strip() if current.tag != "-document" else ""
            if lang:
                return lang
            current = current.parent
        return ""

    def resolve(self, href: str) -> str | None:
        """`href` made absolute against the page URL; None when it cannot be parsed."""
        href = href.strip()
        # fast paths for the usual cases: urljoin costs microseconds, pages have thousands
        if _is_http(href):
            return href
        if self._root and href.startswith("/") and not href.startswith("//"):
            return self._root + href
        try:
            url = urljoin(self.url, href)
        except ValueError:
            return None
        return url if _split(url) is not None else None

    @cached_property
    def _root(self) -> str | None:
        parts = _split(self.url)
        return f"{parts.scheme}://{parts.netloc}" if parts and parts.netloc else None

    @cached_property
    def scheme(self) -> str:
        """The page URL's scheme, lower-cased ("" when the URL cannot be parsed)."""
        parts = _split(self.url)
        return parts.scheme.lower() if parts else ""

    @cached_property
    def titles(self) -> list[str]:
        """The text of every document `<title>` (an SVG's titles are tooltips)."""
        titles = self.tags("title")
        if self.tags("svg"):  # one selector pass in C, not a walk up from every title
            titles = self.css("title:not(svg title)")
        return [_text(node) for node in titles]

    @cached_property
    def title(self) -> str | None:
        """The first title's text, or None."""
        return self.titles[0] if self.titles else None

    @cached_property
    def links(self) -> list[Link]:
        """Every `<a href>` in document order."""
        return [Link(node, _attr(node, "href")) for node in self.css("a[href]")]

    @cached_property
    def resources(self) -> dict[str, list[str]]:
        """Absolute http(s) URLs the page loads, by kind; each URL counted once."""
        found: dict[str, list[str]] = {kind: [] for kind in _RESOURCE_KINDS}
        seen: set[str] = set()
        for kind, tags, attribute, required in _RESOURCES:
            for node in self.tags(*tags):
                if required and not _has_token(node, *required):
                    continue
                value = _attr(node, attribute)
                url = self.resolve(value) if value else None
                if url and url not in seen and _is_http(url):
                    seen.add(url)
                    found[kind].append(url)
        return found

    @cached_property
    def words(self) -> list[str]:
        """The whitespace-separated words of the visible body text (no script, style...)."""
        visible = self.tree.clone()  # a copy, so the shared tree keeps its scripts
        for node in visible.css(_HIDDEN):
            node.decompose()
        body = visible.body
        return body.text(separator=" ").split() if body else []

    @cached_property
    def text(self) -> str:
        """The visible body text, whitespace collapsed."""
        return " ".join(self.words)

    @cached_property
    def folded_text(self) -> str:
        """The visible body text, case-folded for matching."""
        return self.text.casefold()


# --- seo --------------------------------------------------------------------------------


@check("title", "high", "seo")
def title(ctx: Context) -> Outcome:
    """A single, non-empty `<title>` that search results show whole: at most
    `MAX_TITLE_PX` pixels wide in their font (about 60 to 70 characters). Value: the title.
    """
    errors: Errors = {}
    if not ctx.titles:
        errors["missing"] = "The page has no <title>."
    elif not ctx.title:
        errors["empty"] = "The <title> is empty."
    elif (width := text.title_width(ctx.title)) > MAX_TITLE_PX:
        errors["too_long"] = (
            f"The title is {width} px wide in search results, which cut it at about "
            f"{MAX_TITLE_PX} px: keep it shorter."
        )
    if len(ctx.titles) > 1:
        errors["multiple"] = f"The page has {len(ctx.titles)} <title> elements; keep one."
    return verdict(ctx.title, errors)


@check("meta_description", "high", "seo")
def meta_description(ctx: Context) -> Outcome:
    """One non-empty `<meta name=description>` of `MIN_DESCRIPTION` to `MAX_DESCRIPTION`
    characters. Value: its content."""
    nodes = ctx.meta("description")
    content = " ".join(nodes[0].attrs.sget("content").split()) if nodes else None
    errors: Errors = {}
    if not nodes:
        errors["missing"] = 'The page has no <meta name="description">.'
    elif not content:
        errors["empty"] = "The meta description is empty."
    elif len(content) < MIN_DESCRIPTION:
        errors["too_short"] = (
            f"The description has {len(content)} characters; say what the page is about in "
            f"at least {MIN_DESCRIPTION}."
        )
    elif len(content) > MAX_DESCRIPTION:
        errors["too_long"] = (
            f"The description has {len(content)} characters; search results show at most "
            f"about {MAX_DESCRIPTION}."
        )
    if len(nodes) > 1:
        errors["multiple"] = f"The page has {len(nodes)} meta descriptions; keep one."
    return verdict(content, errors)


@check("headings", "high", "seo")
def headings(ctx: Context) -> Outcome:
    """Exactly one `<h1>`, and not the same text as the title. Value: the h1 texts."""
    h1s = [_text(node) for node in ctx.tags("h1")]
    errors: Errors = {}
    if not h1s:
        errors["missing"] = "The page has no <h1>."
    elif len(h1s) > 1:
        errors["multiple"] = f"The page has {len(h1s)} <h1> headings; keep one."
    if ctx.title and any(h1.casefold() == ctx.title.casefold() for h1 in h1s):
        errors["same_as_title"] = "The <h1> repeats the title; make it describe the content."
    return verdict(h1s, errors)


def _site_names(ctx: Context) -> list[str]:
    """What the site calls itself: `og:site_name`, and its host's main label ("acme")."""
    names = [
        _attr(node, "content") for node in ctx.tags("meta") if _meta_key(node) == "og:site_name"
    ]
    parts = _split(ctx.url)
    host = (parts.hostname if parts else "") or ""
    labels = [label for label in host.split(".") if label not in ("www", "m")]
    if len(labels) >= 2:
        names.append(labels[-2])
    return [name for name in names if name]


@check("content_keywords", "high", "seo")
def content_keywords(ctx: Context) -> Outcome:
    """At least half of the title's keywords (its first 20, without the site's name, stop
    words of the page's language or words under three letters) appear in the visible body
    text. Value: the keywords.
    """
    language = _attr(ctx.tags("html")[0], "lang") if ctx.tags("html") else ""
    title_text = text.without_site_name(ctx.title or "", _site_names(ctx))
    wanted = text.keywords(title_text, language)
    errors: Errors = {}
    if not wanted:
        errors["no_keywords"] = "The title has no keywords to look for in the page."
    else:
        searched = wanted[:MAX_KEYWORDS]
        missing = [word for word in searched if not text.has_word(ctx.folded_text, word)]
        if len(missing) > len(searched) * (1 - MIN_KEYWORD_SHARE):
            errors["missing"] = "Title words not in the page text: " + ", ".join(missing) + "."
    return verdict(wanted, errors)


_DECORATIVE_ROLES = frozenset({"presentation", "none"})
MAX_PIXEL_SIDE = 1  # a tracking pixel's width and height: nothing to describe


def _named_image(ctx: Context, node: LexborNode) -> bool:
    """Whether an image has a text alternative or is marked decorative, as axe's image-alt
    rule (Lighthouse's image-alt audit) accepts: an alt attribute (alt="" is decorative),
    role presentation or none, aria-hidden, aria-label, aria-labelledby naming elements
    with text, or a title."""
    attrs = node.attrs
    if "alt" in attrs or attrs.sget("aria-hidden").strip().lower() == "true":
        return True
    if _attr(node, "role").lower() in _DECORATIVE_ROLES:
        return True
    if _attr(node, "aria-label") or _attr(node, "title"):
        return True
    ids = _attr(node, "aria-labelledby").split()
    return any(ctx.text_of_id(element_id) for element_id in ids)


def _tracking_pixel(node: LexborNode) -> bool:
    sides = (_attr(node, "width"), _attr(node, "height"))
    return all(side.isdigit() and int(side) <= MAX_PIXEL_SIDE for side in sides)


@check("image_keywords", "high", "seo")
def image_keywords(ctx: Context) -> Outcome:
    """Every `<img>` has a text alternative or is marked decorative (axe's image-alt rule);
    1x1 tracking pixels are not counted. Value: the images without one."""
    bare = [
        _attr(node, "src")
        for node in ctx.tags("img")
        if not _tracking_pixel(node) and not _named_image(ctx, node)
    ]
    errors: Errors = {}
    if bare:
        errors["missing_alt"] = f"Images without alt text: {len(bare)}."
    return verdict(_distinct(_shown(ctx.resolve(src) or src) for src in bare), errors)


_URL_SEGMENT = re.compile(r"[^\W_]+(?:[-.][^\W_]+)*")


@check("seo_friendly_url", "high", "seo")
def seo_friendly_url(ctx: Context) -> Outcome:
    """The page URL is short and readable. Value: the URL.

    Rules, on the percent-decoded path: no upper-case letters, no underscores, no
    spaces (or `+`); every path segment is words of letters and digits joined by
    single hyphens (a dot is allowed, for a file extension; an empty segment only as a
    trailing slash); at most two query parameters; path and query at most 100
    characters together.
    """
    parts = _split(ctx.url)
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


@check("404_page", "high", "seo")
def missing_page(ctx: Context) -> Outcome:
    """A path that does not exist answers 404. Value: the status it answered."""
    status = ctx.site.missing_page_status
    errors: Errors = {}
    if status is None:
        errors["unchecked"] = "A missing page could not be requested."
    elif status != 404:
        errors["status"] = f"A missing page answers {status}, not 404."
    return verdict(status, errors)


@check("robots", "high", "seo")
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


@check("robots_txt", "low", "seo")
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


@check("noindex", "high", "seo")
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


@check("in_page_links", "medium", "seo")
def in_page_links(ctx: Context) -> Outcome:
    """At most 150 `<a href>` links. Value: how many."""
    count = len(ctx.links)
    errors: Errors = {}
    if count > MAX_LINKS:
        errors["too_many"] = f"The page has {count} links; keep it to {MAX_LINKS}."
    return verdict(count, errors)


@check("language", "medium", "seo")
def language(ctx: Context) -> Outcome:
    """`<html lang>` is declared. Value: the language."""
    roots = ctx.tags("html")
    lang = _attr(roots[0], "lang") if roots else ""
    errors = {} if lang else {"missing": "The <html> element has no lang attribute."}
    return verdict(lang or None, errors)


@check("favicon", "medium", "seo")
def favicon(ctx: Context) -> Outcome:
    """A `<link rel="icon">` (or "shortcut icon") with an href. Value: its URL."""
    hrefs = [_attr(node, "href") for node in ctx.link_rel("icon")]
    url = next((ctx.resolve(href) for href in hrefs if href), None)
    errors = {} if url else {"missing": 'The page declares no <link rel="icon">.'}
    return verdict(url, errors)


@check("canonical", "medium", "seo")
def canonical(ctx: Context) -> Outcome:
    """One canonical URL, absolute http(s), from `<head>` or a `Link:` header, by
    Lighthouse's canonical audit: not several different ones, not another language's
    alternate of this page, not the home page named from a deeper page. Value: the URL.

    A page without any canonical fails as `missing` (Lighthouse: not applicable).
    """
    url, errors = links.canonical_problems(ctx.url, ctx.link_targets)
    return verdict(url, errors)


@check("hreflang", "low", "seo")
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


# punctuation and arrows that decorate "Read more »" style texts
_LINK_TEXT_DECORATION = " .,:;!?()[]<>|-\u2013\u2014\u2026\u00ab\u00bb\u2039\u203a\u2190\u2192"


def _generic_text(ctx: Context, link: Link) -> str | None:
    """The link's text when it says nothing (in the language of the nearest `lang`, or in
    any language without one) or is a bare URL, as Lighthouse's link-text audit finds."""
    text = _text(link.node)
    if not text:
        return None
    if links.absolute_http(text):
        return text
    phrase = " ".join(text.casefold().split()).strip(_LINK_TEXT_DECORATION)
    if phrase not in link_texts.ANY_LANGUAGE:
        return None
    language = ctx.language_of(link.node).split("-", 1)[0].lower()
    generic = link_texts.GENERIC.get(language) if language else link_texts.ANY_LANGUAGE
    return text if generic is not None and phrase in generic else None


@check("link_text", "low", "seo")
def link_text(ctx: Context) -> Outcome:
    """No link says only "click here", "read more" and the like (in the languages of
    `link_texts`), as Lighthouse's link-text audit: nofollow, javascript:, mailto: and
    same-page links are skipped. Value: such texts."""
    generic = []
    for link in ctx.links:
        href = link.href.lower()
        if "nofollow" in link.node.attrs.sget("rel").lower().split():
            continue
        if href.startswith(("javascript:", "mailto:")):
            continue
        target = ctx.resolve(link.href)
        if target is None or links.same_page(target, ctx.url):
            continue
        if (text := _generic_text(ctx, link)) is not None:
            generic.append(text)
    errors = {"generic": f"Links with generic texts: {len(generic)}."} if generic else {}
    return verdict(_distinct(generic), errors)


# attributes that only make sense with an href: an <a> with one of them misses its href
_HREF_ATTRIBUTES = ("target", "download", "ping", "rel", "hreflang", "type", "referrerpolicy")
_VOID_JAVASCRIPT = re.compile(r"javascript:void(\(|)0(\)|)", re.IGNORECASE)  # schemes ignore case


def _uncrawlable(ctx: Context, node: LexborNode) -> bool:
    """Lighthouse's crawlable-anchors rules for one `<a>`."""
    attrs = node.attrs
    raw = "".join(attrs.sget("href").split())
    if _attr(node, "role") or raw.startswith("mailto:"):
        return False
    if not raw and _attr(node, "id"):
        return False  # <a id="..."> is a fragment target
    if raw.startswith("file:"):
        return True
    if _attr(node, "name"):
        return False
    if (
        "href" not in attrs
        and not any(name in attrs for name in _HREF_ATTRIBUTES)
        and _attr(node, "aria-current").lower() in ("page", "location")
    ):
        return False  # a placeholder for the current page
    if "href" not in attrs:
        return True  # <a onclick="..."> and the like: nothing to crawl
    if _VOID_JAVASCRIPT.search(raw):
        return True
    resolved = ctx.resolve(raw) if raw else ctx.url
    return resolved is None or (
        resolved.split(":", 1)[0].lower() in ("http", "https") and not links.absolute_http(resolved)
    )


@check("crawlable_anchors", "low", "seo")
def crawlable_anchors(ctx: Context) -> Outcome:
    """Every `<a>` is a link a crawler can follow, by Lighthouse's crawlable-anchors rules:
    fails `<a>` without href (an onclick handler), `javascript:void(0)`, `file:` and
    malformed URLs; `href=""`, "#" and " " resolve to the page and pass; anchors with a
    role, a name or an id, and mailto: links, are exempt. Value: the bad hrefs."""
    bad = [
        node.attrs.sget("href") if "href" in node.attrs else "(no href)"
        for node in ctx.tags("a")
        if _uncrawlable(ctx, node)
    ]
    errors = {"uncrawlable": f"Links without a crawlable URL: {len(bad)}."} if bad else {}
    return verdict(_distinct(_shown(href) for href in bad), errors)


@check("http_status_code", "high", "seo")
def http_status_code(ctx: Context) -> Outcome:
    """The page answers 2xx. Value: the status."""
    status = ctx.page.status
    errors = {} if 200 <= status < 300 else {"status": f"The page answers {status}."}
    return verdict(status, errors)


# --- performance ------------------------------------------------------------------------

_COMPRESSIONS = frozenset({"gzip", "br", "zstd", "deflate"})


@check("text_compression", "high", "performance")
def text_compression(ctx: Context) -> Outcome:
    """The HTML is sent compressed (gzip, br, zstd or deflate). Value: the encoding."""
    encoding = ctx.page.content_encoding.strip().lower()
    used = {token.strip() for token in encoding.split(",")}
    errors = {} if used & _COMPRESSIONS else {"uncompressed": "The HTML is sent uncompressed."}
    return verdict(encoding or None, errors)


@check("load_time", "medium", "performance")
def load_time(ctx: Context) -> Outcome:
    """The page loads in under 2 seconds. Value: seconds, to 2 decimals."""
    seconds = ctx.page.elapsed
    errors: Errors = {}
    if seconds >= MAX_LOAD_TIME:
        errors["too_slow"] = f"The page took {seconds:.2f} s; aim for under {MAX_LOAD_TIME:g} s."
    return verdict(round(seconds, 2), errors)


@check("page_size", "medium", "performance")
def page_size(ctx: Context) -> Outcome:
    """The HTML is under 330,000 bytes. Value: its size in bytes."""
    size = len(ctx.page.body)
    errors: Errors = {}
    if size >= MAX_PAGE_SIZE:
        errors["too_large"] = f"The HTML is {size:,} bytes; keep it under {MAX_PAGE_SIZE:,}."
    return verdict(size, errors)


@check("http_requests", "medium", "performance")
def http_requests(ctx: Context) -> Outcome:
    """At most 50 distinct resources (scripts, stylesheets, images, frames, media, objects).

    Value: how many of each kind.
    """
    counts = {kind: len(urls) for kind, urls in ctx.resources.items()}
    total = sum(counts.values())
    errors: Errors = {}
    if total > MAX_REQUESTS:
        errors["too_many"] = f"The page loads {total} resources; keep it to {MAX_REQUESTS}."
    return verdict(counts, errors)


_MODERN_EXTENSIONS = frozenset({"avif", "webp", "svg"})
_MODERN_TYPES = ("image/avif", "image/webp", "image/svg+xml")
_PICTURE_TYPES = frozenset({"image/avif", "image/webp"})


def _modern_image(url: str) -> bool:
    if url[:5].lower() == "data:":
        return url[5:].lower().startswith(_MODERN_TYPES)
    name = url.split("#", 1)[0].split("?", 1)[0].rsplit("/", 1)[-1]
    return "." in name and name.rsplit(".", 1)[1].lower() in _MODERN_EXTENSIONS


def _modern_pictures(ctx: Context) -> set[int]:
    """The `mem_id`s of the `<picture>` elements that offer an AVIF or WebP `<source>`."""
    return {
        parent.mem_id
        for node in ctx.tags("source")
        if (parent := node.parent) is not None
        and parent.tag == "picture"
        and _attr(node, "type").lower() in _PICTURE_TYPES
    }


@check("image_format", "medium", "performance")
def image_format(ctx: Context) -> Outcome:
    """Images are AVIF, WebP or SVG, judged by extension. Value: the other images.

    An `<img>` in a `<picture>` that offers an AVIF or WebP `<source>` counts as modern.
    """
    # a <picture> offering AVIF or WebP serves those where supported; the <img> is a fallback
    modern_pictures = _modern_pictures(ctx)
    legacy = []
    for node in ctx.tags("img"):
        src = _attr(node, "src")
        url = ctx.resolve(src) if src else None
        parent = node.parent
        in_modern_picture = parent is not None and parent.mem_id in modern_pictures
        if url and not _modern_image(url) and not in_modern_picture:
            legacy.append(url)
    errors: Errors = {}
    if legacy:
        errors["legacy"] = f"Images not in AVIF, WebP or SVG: {len(legacy)}."
    return verdict(_distinct(_shown(url) for url in legacy), errors)


_JS_TYPES = frozenset(
    {
        "",
        "text/javascript",
        "application/javascript",
        "application/x-javascript",
        "text/ecmascript",
        "application/ecmascript",
        "text/jscript",
    }
)


@check("defer_javascript", "low", "performance")
def defer_javascript(ctx: Context) -> Outcome:
    """Every external script is `defer`, `async` or a module. Value: the blocking ones."""
    blocking = [
        ctx.resolve(_attr(node, "src")) or _attr(node, "src")
        for node in ctx.tags("script")
        if "src" in node.attrs
        and "defer" not in node.attrs
        and "async" not in node.attrs
        # modules defer by default; other types (JSON, templates) never run
        and _attr(node, "type").lower() in _JS_TYPES
    ]
    errors: Errors = {}
    if blocking:
        errors["blocking"] = f"Scripts without defer or async: {len(blocking)}."
    return verdict(_distinct(_shown(url) for url in blocking), errors)


@check("dom_size", "low", "performance")
def dom_size(ctx: Context) -> Outcome:
    """At most 1,500 elements. Value: how many."""
    count = ctx.element_count
    errors: Errors = {}
    if count > MAX_ELEMENTS:
        errors["too_large"] = f"The page has {count:,} elements; keep it to {MAX_ELEMENTS:,}."
    return verdict(count, errors)


# --- security ---------------------------------------------------------------------------


@check("https_encryption", "high", "security")
def https_encryption(ctx: Context) -> Outcome:
    """The page is served over HTTPS. Value: the scheme."""
    errors = {} if ctx.scheme == "https" else {"insecure": "The page is not served over HTTPS."}
    return verdict(ctx.scheme or None, errors)


@check("mixed_content", "medium", "security")
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


@check("server_signature", "medium", "security")
def server_signature(ctx: Context) -> Outcome:
    """`Server` and `X-Powered-By` reveal no version number. Value: those headers."""
    found = {name: ctx.headers[name] for name in _SIGNATURE_HEADERS if name in ctx.headers}
    errors = {
        name: f"The {name} header reveals a version: {value}"
        for name, value in found.items()
        if _VERSION.search(value)
    }
    return verdict(found, errors)


@check("unsafe_cross_origin_links", "medium", "security")
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


@check("plaintext_email", "low", "security")
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


# --- miscellaneous ----------------------------------------------------------------------


def _meta_key(node: LexborNode) -> str:
    # Open Graph uses property=, Twitter cards name=; many sites mix them up
    return (_attr(node, "property") or _attr(node, "name")).lower()


@check("structured_data", "medium", "miscellaneous")
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


@check("meta_viewport", "medium", "miscellaneous")
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


def _meta_charset(node: LexborNode) -> str | None:
    if "charset" in node.attrs:
        return _attr(node, "charset").lower() or None
    if _attr(node, "http-equiv").lower() == "content-type":
        return charset_in(node.attrs.sget("content"))
    return None


@check("charset", "medium", "miscellaneous")
def charset(ctx: Context) -> Outcome:
    """A charset declared in Content-Type or a `<meta>`. Value: the declared charset."""
    declared = ctx.header_charset or next(
        (found for node in ctx.tags("meta") if (found := _meta_charset(node))), None
    )
    errors = {} if declared else {"missing": "No charset in Content-Type or a <meta>."}
    return verdict(declared or None, errors)


@check("sitemap", "low", "miscellaneous")
def sitemap(ctx: Context) -> Outcome:
    """robots.txt declares a `Sitemap:`. Value: the sitemap URLs."""
    sitemaps = robots.sitemaps(ctx.site)
    errors = {} if sitemaps else {"missing": "robots.txt declares no Sitemap."}
    return verdict(_distinct(sitemaps), errors)


_SOCIAL_NETWORKS = {
    "facebook.com": "facebook",
    "fb.com": "facebook",
    "x.com": "x",
    "twitter.com": "x",
    "instagram.com": "instagram",
    "linkedin.com": "linkedin",
    "youtube.com": "youtube",
    "youtu.be": "youtube",
    "tiktok.com": "tiktok",
    "pinterest.com": "pinterest",
    "github.com": "github",
    "mastodon.social": "mastodon",
    "mastodon.online": "mastodon",
    "threads.net": "threads",
    "bsky.app": "bluesky",
    "reddit.com": "reddit",
    "discord.gg": "discord",
    "discord.com": "discord",
    "t.me": "telegram",
    "whatsapp.com": "whatsapp",
    "wa.me": "whatsapp",
    "snapchat.com": "snapchat",
    "tumblr.com": "tumblr",
    "twitch.tv": "twitch",
    "vk.com": "vk",
    "dribbble.com": "dribbble",
    "behance.net": "behance",
}


def social_network(url: str) -> str | None:
    """The social network an absolute URL belongs to (by host or parent domain), or None."""
    host = _authority(url).rsplit("@", 1)[-1].split(":", 1)[0]
    return _network_of(host.lower().rstrip("."))


@lru_cache(maxsize=1024)
def _network_of(host: str) -> str | None:
    labels = host.split(".")
    if labels[0] == "mastodon" and len(labels) > 2:  # self-hosted: mastodon.<domain>
        return "mastodon"
    for start in range(len(labels) - 1):
        network = _SOCIAL_NETWORKS.get(".".join(labels[start:]))
        if network:
            return network
    return None


@check("social", "low", "miscellaneous")
def social(ctx: Context) -> Outcome:
    """Links to social networks. Value: the networks linked to."""
    # a relative href stays on this site; only absolute and //host links can leave it
    networks = _distinct(
        network
        for link in ctx.links
        if "//" in link.href and (network := social_network(link.href))
    )
    errors = {} if networks else {"missing": "The page links to no social network."}
    return verdict(networks, errors)


@check("content_length", "low", "miscellaneous")
def content_length(ctx: Context) -> Outcome:
    """At least 500 words of visible body text, counted by script (`text.word_count`: each
    Chinese or Japanese character is a word). Value: the count."""
    count = text.word_count(ctx.text)
    errors: Errors = {}
    if count < MIN_WORDS:
        errors["too_short"] = f"The page has {count} words; aim for at least {MIN_WORDS}."
    return verdict(count, errors)


@check("text_html_ratio", "low", "miscellaneous")
def text_html_ratio(ctx: Context) -> Outcome:
    """Visible text is at least 10% of the HTML, in characters. Value: the percentage."""
    ratio = round(100 * len(ctx.text) / len(ctx.html), 2) if ctx.html else 0.0
    errors: Errors = {}
    if ratio < MIN_TEXT_RATIO:
        errors["too_low"] = f"Text is {ratio}% of the HTML; aim for {MIN_TEXT_RATIO:g}%."
    return verdict(ratio, errors)


@check("inline_css", "low", "miscellaneous")
def inline_css(ctx: Context) -> Outcome:
    """No `style=` attributes. Value: the tags that carry one."""
    styled = [node.tag or "" for node in ctx.css("[style]:not([style=''])")]
    errors: Errors = {}
    if styled:
        errors["inline"] = f"Elements with a style attribute: {len(styled)}."
    return verdict(_distinct(styled), errors)


@check("deprecated_html_tags", "low", "miscellaneous")
def deprecated_html_tags(ctx: Context) -> Outcome:
    """No obsolete tags such as `<font>`, `<center>` or `<marquee>`. Value: those used."""
    used = [tag for tag in _DEPRECATED_TAGS if ctx.tags(tag)]
    errors = {"deprecated": "Obsolete tags: " + ", ".join(used)} if used else {}
    return verdict(used, errors)
