"""A generated fixture site with known defects, and the issues an audit must find on it.

`Site()` serves it on 127.0.0.1 (a port of its own); `EXPECTED` names, for each
cross-page check, the exact pages it must list (precision and recall both 100%).
`localhost` on the same port is another host: the external links go there.
"""

from __future__ import annotations

import gzip
import hashlib
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from sitelens.local import STOP_POLL_SECONDS


def words(seed: str, count: int = 120) -> str:
    """Text of its own for each page (so that only the planted copies are near-duplicates)."""
    return " ".join(
        "w" + hashlib.blake2b(f"{seed}{n}".encode(), digest_size=3).hexdigest()
        for n in range(count)
    )


def page(title: str, links: list[str], head: str = "", text: str | None = None) -> str:
    anchors = "".join(f'<a href="{href}">{href}</a> ' for href in links)
    return (
        f"<!doctype html><html lang=en><head><title>{title}</title>"
        f'<meta name="description" content="About {title}.">{head}</head>'
        f"<body><h1>{title}</h1><p>{text if text is not None else words(title)}</p>"
        f"{anchors}</body></html>"
    )


SAME_TEXT = words("duplicate")
HOME_LINKS = [
    "/a",
    "/b",
    "/dup1",
    "/dup2#section",  # a fragment: the same page as /dup2
    "/redirect1",
    "/broken",
    "/loop",
    "/canon-src",
    "/canon-noindex",
    "/private",
    "/en",
    "/a?utm_source=x",  # excluded parameter: the same page as /a
    "EXTERNAL/gone",
    "EXTERNAL/fine",
]


def pages() -> dict[str, tuple[int, dict[str, str], str]]:
    """path -> (status, headers, body)."""
    html = {"Content-Type": "text/html; charset=utf-8"}
    site: dict[str, tuple[int, dict[str, str], str]] = {
        "/": (200, html, page("Home", HOME_LINKS)),
        "/a": (200, html, page("Page A", ["/", "/deep1"])),
        "/b": (200, html, page("Dead end B", [])),
        "/c": (200, html, page("Page C", ["/"])),
        "/dup1": (200, html, page("Duplicate", ["/"], text=SAME_TEXT)),
        "/dup2": (200, html, page("Duplicate", ["/"], text=SAME_TEXT)),
        "/deep1": (200, html, page("Deep 1", ["/", "/deep2"])),
        "/deep2": (200, html, page("Deep 2", ["/", "/deep3"])),
        "/deep3": (200, html, page("Deep 3", ["/", "/deep4"])),
        "/deep4": (200, html, page("Deep 4", ["/"])),
        "/redirect1": (301, {"Location": "/redirect2"}, ""),
        "/redirect2": (301, {"Location": "/c"}, ""),
        "/loop": (302, {"Location": "/loop2"}, ""),
        "/loop2": (302, {"Location": "/loop"}, ""),
        "/canon-src": (
            200,
            html,
            page(
                "Canonical source",
                ["/", "/gone-canon"],
                '<link rel="canonical" href="/gone-canon">',
            ),
        ),
        "/gone-canon": (410, html, "gone"),
        "/canon-noindex": (
            200,
            html,
            page(
                "Canonical to noindex", ["/", "/noindex"], '<link rel="canonical" href="/noindex">'
            ),
        ),
        "/noindex": (200, html, page("Noindex", ["/"], '<meta name="robots" content="noindex">')),
        "/orphan": (200, html, page("Orphan", ["/"])),
        "/private": (200, html, page("Private", ["/"])),
        "/en": (
            200,
            html,
            page(
                "English",
                ["/", "/de"],
                '<link rel="alternate" hreflang="en" href="/en">'
                '<link rel="alternate" hreflang="de" href="/de">'
                '<link rel="alternate" hreflang="en_GB" href="/en">',
            ),
        ),
        "/de": (
            200,
            html,
            page("Deutsch", ["/"], '<link rel="alternate" hreflang="de" href="/de">'),
        ),
        "/robots.txt": (
            200,
            {"Content-Type": "text/plain"},
            "User-agent: *\nDisallow: /private\nSitemap: BASE/sitemap_index.xml\n",
        ),
        "/sitemap_index.xml": (
            200,
            {"Content-Type": "application/xml"},
            "<?xml version='1.0'?><sitemapindex xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
            "<sitemap><loc>BASE/sitemap-pages.xml.gz</loc></sitemap></sitemapindex>",
        ),
    }
    return site


SITEMAP_PATHS = ["/", "/a", "/orphan", "/redirect1", "/noindex"]
# What the audit of `/` must report, by check: the affected pages' paths (sources for
# broken links), each exactly.
EXPECTED = {
    "broken_internal_link": {"/", "/canon-src"},  # /broken (404), and /gone-canon (410)
    "broken_external_link": {"/"},  # EXTERNAL/gone
    "redirect_loop": {"/loop", "/loop2"},
    "redirect_chain": {"/redirect1"},
    "duplicate_title": {"/dup1", "/dup2"},
    "duplicate_description": {"/dup1", "/dup2"},
    "near_duplicate_content": {"/dup1", "/dup2"},
    "canonical_to_error": {"/canon-src"},
    "canonical_to_noindex": {"/canon-noindex"},
    "canonicalised": {"/canon-src", "/canon-noindex"},
    "orphan_page": {"/orphan"},
    "dead_end": {"/b"},
    "deep_page": {"/deep3", "/deep4"},
    "sitemap_non_indexable": {"/redirect1", "/noindex"},
    "hreflang_no_return": {"/en"},
    "hreflang_invalid_code": {"/en"},
    "hreflang_no_self": set(),
    "hreflang_no_x_default": {"/en", "/de"},
    "mixed_content": set(),
    "llms_txt_missing": {"/llms.txt"},  # the site has none
    **{
        code: set()
        for code in (
            "structured_data_error",
            "structured_data_warning",
            "image_broken",
            "image_oversized",
            "image_legacy_format",
            "llms_txt_malformed",
            "llms_txt_broken_link",
        )
    },
}


class Site:
    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []  # (path, user agent), as the server saw them
        self.pages = pages()  # a test may change them between runs
        self.times: list[tuple[float, str]] = []  # (time.monotonic(), path) of each request
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, args=(STOP_POLL_SECONDS,), daemon=True
        )
        self.thread.start()

    def url(self, path: str) -> str:
        return self.base + path

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        def sitemap_gz() -> bytes:
            urls = "".join(f"<url><loc>{site.base}{p}</loc></url>" for p in SITEMAP_PATHS)
            xmlns = "http://www.sitemaps.org/schemas/sitemap/0.9"
            return gzip.compress(f"<urlset xmlns='{xmlns}'>{urls}</urlset>".encode())

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                host = self.headers.get("Host", "")
                site.requests.append((self.path, self.headers.get("User-Agent", "")))
                site.times.append((time.monotonic(), self.path))
                path = self.path.split("?")[0]
                if host.startswith("localhost"):
                    status = 200 if path == "/fine" else 404
                    return self._send(status, {"Content-Type": "text/html"}, b"<p>external</p>")
                if path == "/sitemap-pages.xml.gz":
                    return self._send(200, {"Content-Type": "application/gzip"}, sitemap_gz())
                status, headers, body = site.pages.get(
                    path, (404, {"Content-Type": "text/html"}, "nf")
                )
                external = f"http://localhost:{site.port}"
                text = body.replace("BASE", site.base).replace("EXTERNAL", external)
                return self._send(status, headers, text.encode())

            def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        return Handler


def flat_pages(count: int) -> dict[str, tuple[int, dict[str, str], str]]:
    """A site of `count` pages for `Site.pages`: the home page links every other page, each
    links home; no external link, and a robots.txt that allows all (no crawl-delay)."""
    html = {"Content-Type": "text/html; charset=utf-8"}
    others = [f"/p{n}" for n in range(count - 1)]
    return {
        "/": (200, html, page("Home", others)),
        **{path: (200, html, page(f"Page {path}", ["/"])) for path in others},
        "/robots.txt": (200, {"Content-Type": "text/plain"}, "User-agent: *\nAllow: /\n"),
    }
