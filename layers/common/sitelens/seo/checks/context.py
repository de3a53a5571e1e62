"""The shared context of the checks: one page decoded and parsed once (`Context`), and the
small readers of its nodes and URLs that the checks of every category use (`_attr`,
`_text`, `_distinct`...: underscored, as they are for the check modules of this package only).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from functools import cached_property, lru_cache
from typing import NamedTuple
from urllib.parse import urljoin

from selectolax.lexbor import LexborHTMLParser, LexborNode

from sitelens.core import hosts
from sitelens.seo import encoding, links
from sitelens.seo.encoding import charset_in
from sitelens.seo.page import Site

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
    parts = hosts.split_url(f"{scheme}://{authority}/")
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
        return url if hosts.split_url(url) is not None else None

    @cached_property
    def _root(self) -> str | None:
        parts = hosts.split_url(self.url)
        return f"{parts.scheme}://{parts.netloc}" if parts and parts.netloc else None

    @cached_property
    def scheme(self) -> str:
        """The page URL's scheme, lower-cased ("" when the URL cannot be parsed)."""
        parts = hosts.split_url(self.url)
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


def _meta_charset(node: LexborNode) -> str | None:
    if "charset" in node.attrs:
        return _attr(node, "charset").lower() or None
    if _attr(node, "http-equiv").lower() == "content-type":
        return charset_in(node.attrs.sget("content"))
    return None


def _meta_key(node: LexborNode) -> str:
    # Open Graph uses property=, Twitter cards name=; many sites mix them up
    return (_attr(node, "property") or _attr(node, "name")).lower()
