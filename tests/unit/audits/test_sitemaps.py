"""Sitemaps: what is read of a well-formed, a malformed and a hostile file, and that a
hostile one at the real caps is parsed in under a second of CPU (a bound on linear work,
not a speed figure: the old `<loc>` regex took 2.4 s on 40 KB of unclosed tags)."""

from __future__ import annotations

import gzip
import time

import pytest

from sitelens.audits import sitemaps
from tests.fixtures.hostile_sitemaps import AFTER, HOSTILE

CPU_SECONDS = 1.0


def locations(document: str) -> list[str]:
    return sitemaps.parse(document.encode())[1]


def test_namespaces_cdata_references_and_whitespace_are_read() -> None:
    found = locations(
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<sm:url><sm:loc>https://e.com/a</sm:loc></sm:url>"
        "<url><loc>\n   https://e.com/b?x=1&amp;y=2&#38;z=&#x33;\n</loc></url>"
        "<url><loc><![CDATA[https://e.com/c?x=1&y=2]]></loc></url>"
        '<url><LOC>https://e.com/d</LOC></url><url><loc id="x">https://e.com/e</loc ></url>'
        "</sm:urlset>"
    )
    assert found == [
        "https://e.com/a",
        "https://e.com/b?x=1&y=2&z=3",
        "https://e.com/c?x=1&y=2",
        "https://e.com/d",
        "https://e.com/e",
    ]


def test_malformed_parts_are_skipped_and_the_rest_still_counts() -> None:
    found = locations(
        "<urlset><url><loc>https://e.com/unclosed</url>"
        "<url><loc>https://e.com/bare?a=1&b=2</loc></url>"  # an unescaped & is common
        f"<url><loc>https://e.com/{'a' * sitemaps.MAX_LOCATION_BYTES}</loc></url>"
        "<url><loc></loc><loc>  </loc></url>"
        "<!-- <url><loc>https://e.com/commented</loc></url> -->"
        "<url><location>https://e.com/not-a-loc</location></url>"
        "<url><loc>https://e.com/last</loc>"  # the file ends without its </urlset>
    )
    assert found == ["https://e.com/bare?a=1&b=2", "https://e.com/last"]


def test_a_declared_entity_is_never_expanded() -> None:
    document = (
        '<!DOCTYPE urlset [<!ENTITY site "https://e.com">'
        '<!ENTITY inside "<url><loc>https://e.com/declared</loc></url>">]>'
        "<urlset><url><loc>&site;/a</loc></url>&inside;"
        "<url><loc>https://e.com/&amp;&lt;&gt;&quot;&apos;</loc></url></urlset>"
    )
    assert locations(document) == ["https://e.com/&<>\"'"]


def test_an_index_is_told_by_its_root_element() -> None:
    index = (
        '\ufeff<?xml version="1.0"?><!-- generated -->'
        "<sitemapindex><sitemap><loc>https://e.com/1.xml</loc></sitemap></sitemapindex>"
    )
    assert sitemaps.parse(index.encode()) == (True, ["https://e.com/1.xml"])
    prefixed = "<sm:SitemapIndex><sm:sitemap><sm:loc>x</sm:loc></sm:sitemap></sm:SitemapIndex>"
    assert sitemaps.parse(prefixed.encode())[0]
    named_later = "<urlset><url><loc>https://e.com/sitemapindex</loc></url></urlset>"
    assert sitemaps.parse(named_later.encode()) == (False, ["https://e.com/sitemapindex"])


def test_gzip_files_members_and_files_cut_short() -> None:
    pages = b"".join(b"<url><loc>https://e.com/%d</loc></url>" % n for n in range(3_000))
    whole = gzip.compress(b"<urlset>" + pages + b"</urlset>")
    assert len(sitemaps.parse(whole)[1]) == 3_000
    # a gzip file cut by the fetcher's size cap gives what came before the cut
    cut = sitemaps.parse(whole[: len(whole) // 2])[1]
    assert 0 < len(cut) < 3_000 and cut == [f"https://e.com/{n}" for n in range(len(cut))]
    members = gzip.compress(b"<urlset><url><loc>https://e.com/a</loc></url>") + gzip.compress(
        b"<url><loc>https://e.com/b</loc></url></urlset>"
    )
    assert sitemaps.parse(members)[1] == ["https://e.com/a", "https://e.com/b"]
    assert sitemaps.decompressed(b"\x1f\x8bnot gzip") == b""
    assert sitemaps.decompressed(b"x" * (sitemaps.MAX_BYTES + 1)) == b"x" * sitemaps.MAX_BYTES


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_sitemap_is_parsed_in_linear_time(name: str) -> None:
    body = HOSTILE[name](sitemaps.MAX_BYTES)
    started = time.process_time()
    is_index, found = sitemaps.parse(body)
    seconds = time.process_time() - started
    assert (is_index, found) == (False, [AFTER])
    assert seconds < CPU_SECONDS, f"{name}: {seconds:.2f} s of CPU"


def test_a_gzip_bomb_is_cut_at_the_cap() -> None:
    bomb = HOSTILE["gzip bomb, 100 MB"](sitemaps.MAX_BYTES)
    assert len(bomb) < sitemaps.MAX_BYTES // 50
    assert len(sitemaps.decompressed(bomb)) == sitemaps.MAX_BYTES


def test_no_entity_is_fetched() -> None:
    fetched: list[str] = []
    bodies = {
        "https://e.com/xxe.xml": HOSTILE["external entities (XXE)"](0),
        "https://e.com/laughs.xml": HOSTILE["billion laughs"](0),
    }

    def fetch(url: str) -> bytes | None:
        fetched.append(url)
        return bodies.get(url)

    found = list(sitemaps.urls(list(bodies), fetch, most=100))
    assert found == [AFTER, AFTER] and fetched == list(bodies)
    assert not any("lol" in url or "etc" in url or "xxe" in url for url in found)


def test_image_locations_are_not_pages() -> None:
    body = (
        b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        b'xmlns:img="http://www.google.com/schemas/sitemap-image/1.1">'
        b"<url><loc>https://e.com/a</loc><img:image><img:loc>https://e.com/a.jpg</img:loc>"
        b"</img:image></url></urlset>"
    )
    assert sitemaps.parse(body) == (False, ["https://e.com/a"])
