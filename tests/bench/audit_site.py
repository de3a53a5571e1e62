"""A generated site for the audit bench, served on 127.0.0.1 (a port of its own), with
known answers: `GeneratedSite(pages, groups)` serves about `pages` pages, `groups` of them
each planting one of every defect the cross-page checks find (broken links, redirect
chains and loops, duplicate titles, descriptions and text, canonicals to an error and to a
noindex page, an orphan only in the sitemap, a dead end, pages too deep, hreflang without
a return link, an invalid code and no x-default); the rest are clean filler pages under
hubs. `expected` names, for each check, exactly the paths it must list.

`python -m tests.bench.audit_site 20000` serves 20,000 pages until interrupted.

Layout: `/` links to every hub `/h<n>` and every group's entry pages (at most 500 links, the
crawler's bound a page); a hub links to its 100 fillers `/h<n>/p<j>`; a filler links back.
Every page has its own title, description and 120 words of text of its own.
"""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from sitelens.audits.facts import of_page
from sitelens.audits.urls import Scope
from tests.bench import content_pages  # structured data, images and llms.txt
from tests.integration.audits.site import page, words  # the small fixture site's pages

FILLERS_PER_HUB = 100
ADDED = 50  # pages published between the two runs (`GeneratedSite.change`)
HTML = "text/html; charset=utf-8"


def _group(g: str) -> dict[str, tuple[int, str, str]]:
    """One group's pages (path -> status, Location or content type, body)."""
    same = words(f"duplicate {g}")

    def alternates(*pairs: tuple[str, str]) -> str:
        return "".join(f'<link rel="alternate" hreflang="{c}" href="{h}">' for c, h in pairs)

    return {
        f"{g}/broken-src": (200, HTML, page(f"Broken source {g}", ["/", f"{g}/missing"])),
        f"{g}/r1": (301, f"{g}/r2", ""),
        f"{g}/r2": (301, f"{g}/r-end", ""),
        f"{g}/r-end": (200, HTML, page(f"Redirect end {g}", ["/"])),
        f"{g}/l1": (302, f"{g}/l2", ""),
        f"{g}/l2": (302, f"{g}/l1", ""),
        f"{g}/d1": (200, HTML, page(f"Duplicate {g}", ["/"], text=same)),
        f"{g}/d2": (200, HTML, page(f"Duplicate {g}", ["/"], text=same)),
        f"{g}/canon-src": (
            200,
            HTML,
            page(
                f"Canonical source {g}",
                ["/", f"{g}/gone"],
                f'<link rel="canonical" href="{g}/gone">',
            ),
        ),
        f"{g}/gone": (410, HTML, "gone"),
        f"{g}/canon-noindex": (
            200,
            HTML,
            page(
                f"Canonical to noindex {g}",
                ["/", f"{g}/noindex"],
                f'<link rel="canonical" href="{g}/noindex">',
            ),
        ),
        f"{g}/noindex": (
            200,
            HTML,
            page(f"Noindex {g}", ["/"], '<meta name="robots" content="noindex">'),
        ),
        f"{g}/orphan": (200, HTML, page(f"Orphan {g}", ["/"])),
        f"{g}/dead": (200, HTML, page(f"Dead end {g}", [])),
        **{
            f"{g}/deep{n}": (200, HTML, page(f"Deep {n} {g}", ["/", f"{g}/deep{n + 1}"]))
            for n in range(1, 5)
        },
        f"{g}/deep5": (200, HTML, page(f"Deep 5 {g}", ["/"])),
        f"{g}/en": (
            200,
            HTML,
            page(
                f"English {g}",
                ["/", f"{g}/de"],
                alternates(("en", f"{g}/en"), ("de", f"{g}/de"), ("en_GB", f"{g}/en")),
            ),
        ),
        f"{g}/de": (200, HTML, page(f"Deutsch {g}", ["/"], alternates(("de", f"{g}/de")))),
    }


# a group's pages linked from the home page (its other pages are reached from these)
ENTRIES = (
    "broken-src",
    "r1",
    "l1",
    "d1",
    "d2",
    "canon-src",
    "canon-noindex",
    "dead",
    "deep1",
    "en",
)


def expected(groups: int) -> dict[str, set[str]]:
    """What an audit of `/` must report, by check: the affected paths, each exactly."""
    found: dict[str, set[str]] = {}
    for n in range(groups):
        g = f"/g{n}"
        for check, paths in {
            "broken_internal_link": {"broken-src", "canon-src"},  # missing (404), gone (410)
            "redirect_loop": {"l1", "l2"},
            "redirect_chain": {"r1"},
            "duplicate_title": {"d1", "d2"},
            "duplicate_description": {"d1", "d2"},
            "near_duplicate_content": {"d1", "d2"},
            "canonical_to_error": {"canon-src"},
            "canonical_to_noindex": {"canon-noindex"},
            "canonicalised": {"canon-src", "canon-noindex"},
            "orphan_page": {"orphan"},
            "dead_end": {"dead"},
            "deep_page": {"deep4", "deep5"},  # 4 and 5 clicks from /
            "hreflang_no_return": {"en"},
            "hreflang_invalid_code": {"en"},
            "hreflang_no_x_default": {"en", "de"},
        }.items():
            found.setdefault(check, set()).update(f"{g}/{p}" for p in paths)
    for check in ("sitemap_non_indexable", "hreflang_no_self", "mixed_content"):
        found.setdefault(check, set())  # none planted: anything listed is a false positive
    return found


# -- near-duplicate clusters (issue 45): separate from the groups above ------------------
CLUSTER_SIZE = 3  # an original and two copies, each a word or two longer
CLUSTER_WORDS = 200
CLUSTER_BITS = 2  # a copy's simhash distance from its original at most (95%: 3 bits)


def _simhash(body: str) -> int:
    """The page's simhash as the crawler computes it."""
    scope = Scope("http://site.test/", "", "")
    return int(of_page("http://site.test/", body.encode(), {}, scope)["simhash"])


def cluster_pages(n: int) -> dict[str, tuple[int, str, str]]:
    """Cluster `n`: `/c<n>` and its copies `/c<n>/copy<k>`: the same title and
    text with a word of their own added at the end (as a product's variants are), the word
    chosen so that the copy's simhash is at most `CLUSTER_BITS` from the original's: near
    duplicates at the default threshold by construction, which the run must find."""
    text = words(f"cluster {n}", CLUSTER_WORDS)
    title = f"Cluster {n}"
    original = page(title, ["/"], text=text)
    found = {f"/c{n}": (200, HTML, original)}
    for k in range(1, CLUSTER_SIZE):
        for attempt in range(1000):
            body = page(title, ["/"], text=f"{text} variant{n}x{k}x{attempt}")
            if bin(_simhash(body) ^ _simhash(original)).count("1") <= CLUSTER_BITS:
                found[f"/c{n}/copy{k}"] = (200, HTML, body)
                break
    return found


def expected_clusters(clusters: int) -> dict[str, set[str]]:
    """Each planted cluster's original -> its copies, as the run must report them."""
    return {f"/c{n}": {f"/c{n}/copy{k}" for k in range(1, CLUSTER_SIZE)} for n in range(clusters)}


def page_links(body: str) -> list[str]:
    """The links of a page `page()` made, in its order."""
    return [part.split('"', 1)[0] for part in body.split('<a href="')[1:]]


class GeneratedSite:
    """The site, served until `close`; its pages are generated once, up front."""

    def __init__(self, pages: int, groups: int, clusters: int = 0, content: bool = True) -> None:
        # `content`: each group also plants the content checks' pages (`content_pages`)
        planted_content = content_pages.ENTRIES if content else ()
        per_group = len(_group("/g0")) + len(planted_content)
        fillers = max(0, pages - 1 - groups * per_group - clusters * CLUSTER_SIZE)
        hubs = -(-fillers // (FILLERS_PER_HUB + 1))  # each hub and its fillers
        entries = (*ENTRIES, *planted_content)
        if hubs + groups * len(entries) + clusters * CLUSTER_SIZE > 500:
            raise ValueError("too many links on the home page: fewer groups or pages")
        self.groups = groups
        self.expected = expected(groups)
        home = [f"/h{n}" for n in range(hubs)]
        home += [f"/g{n}/{entry}" for n in range(groups) for entry in entries]
        planted = [cluster_pages(n) for n in range(clusters)]
        home += [path for cluster in planted for path in cluster]
        self.clusters = expected_clusters(clusters)
        self.pages: dict[str, tuple[int, str, str | bytes]] = {"/": (200, HTML, page("Home", home))}
        left = fillers - hubs
        for n in range(hubs):
            mine = [f"/h{n}/p{j}" for j in range(min(FILLERS_PER_HUB, left))]
            left -= len(mine)
            self.pages[f"/h{n}"] = (200, HTML, page(f"Hub {n}", ["/", *mine]))
            for path in mine:
                self.pages[path] = (200, HTML, page(f"Page {path}", ["/", f"/h{n}"]))
        for n in range(groups):
            self.pages.update(_group(f"/g{n}"))
            if content:
                self.pages.update(content_pages.pages(f"/g{n}"))
        for cluster in planted:
            self.pages.update(cluster)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.pages["/llms.txt"] = (200, "text/markdown", content_pages.llms_txt(self.base))
        # (page path, detail) of the content checks: `content_pages.expected`
        self.content_expected = content_pages.expected(groups if content else 0, self.base)
        self.content_expected |= content_pages.expected_llms(self.base)
        self.fetches = 0  # page requests served (robots.txt and the sitemap aside)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return self.base + path

    def change(self, added: int = ADDED) -> dict[str, dict[str, int]]:
        """Change the site as between two runs, and give the diff the second run must
        report: `{check: {field: count}}` for every check that changes, and `_site` for
        the pages added and removed. The history:

        - even groups fix their dead end (`/g<n>/dead` links home): fixed;
        - odd groups drop `/g<n>/d2` from the home page, so it is no longer crawled: its
          duplicate title, description and text are removed with it, and `/g<n>/d1`'s
          are fixed (it has no copy left);
        - every filler of the first hub links to `/h0/missing` (404): pages the site had
          gain a broken link, a high-severity regression;
        - the first hub links `added` new pages, each a dead end: added pages of a
          persisting low issue, not a regression.
        """
        even = -(-self.groups // 2)
        odd = self.groups // 2
        for n in range(0, self.groups, 2):
            self.pages[f"/g{n}/dead"] = (200, HTML, page(f"Dead end /g{n}", ["/"]))
        home = page_links(self.pages["/"][2])
        dropped = {f"/g{n}/d2" for n in range(1, self.groups, 2)}
        self.pages["/"] = (200, HTML, page("Home", [p for p in home if p not in dropped]))
        hub = page_links(self.pages["/h0"][2])
        fillers = [p for p in hub if p.startswith("/h0/p")]
        for path in fillers:
            self.pages[path] = (200, HTML, page(f"Page {path}", ["/", "/h0", "/h0/missing"]))
        new = [f"/h0/new{k}" for k in range(added)]
        for path in new:
            self.pages[path] = (200, HTML, page(f"New {path}", []))
        self.pages["/h0"] = (200, HTML, page("Hub 0", [*hub, *new]))
        zero = {"new_pages": 0, "added_pages": 0, "fixed_pages": 0, "removed_pages": 0}
        copies = {**zero, "pages": 2 * even, "fixed_pages": odd, "removed_pages": odd}
        return {
            "dead_end": {**zero, "pages": odd + added, "fixed_pages": even, "added_pages": added},
            "duplicate_title": copies,
            "duplicate_description": copies,
            "near_duplicate_content": copies,
            "broken_internal_link": {
                **zero,
                "pages": 2 * self.groups + len(fillers),
                "new_pages": len(fillers),
            },
            "_site": {"pages_added": added, "pages_removed": odd, "regression": 1},
        }

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _sitemap(self) -> bytes:
        paths = ["/", *(f"/g{n}/orphan" for n in range(self.groups))]
        urls = "".join(f"<url><loc>{self.base}{p}</loc></url>" for p in paths)
        return (
            "<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
            f"{urls}</urlset>"
        ).encode()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                path = self.path.split("?")[0]
                if path == "/robots.txt":
                    body = f"User-agent: *\nSitemap: {site.base}/sitemap.xml\n".encode()
                    return self._send(200, {"Content-Type": "text/plain"}, body)
                if path == "/sitemap.xml":
                    return self._send(200, {"Content-Type": "application/xml"}, site._sitemap())
                site.fetches += 1
                status, meta, body = site.pages.get(path, (404, "text/plain", "not found"))
                if status in (301, 302):
                    return self._send(status, {"Location": meta}, b"")
                webp = "image/webp" in self.headers.get("Accept", "")
                if webp and path.endswith("/" + content_pages.NEGOTIATED):
                    meta, body = content_pages.negotiated()
                data = body if isinstance(body, bytes) else body.encode()
                return self._send(status, {"Content-Type": meta}, data)

            def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler


if __name__ == "__main__":
    served = GeneratedSite(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000, groups=30)
    print(f"{len(served.pages)} pages at {served.base}/ (Ctrl-C stops)")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        served.close()
