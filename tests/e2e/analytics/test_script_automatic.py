"""The tracking script's extensions in headless Chromium, loaded as their file
(`script.outbound-links.file-downloads.404.scroll-depth.js`) or asked for by an older
snippet's `data-auto` on `script.js` (which loads that file): a page served with status 404
sends `404`, a click on a PDF link `File Download`, a click on a link to another host
`Outbound Link: Click` while the browser goes on to that page, and the engagement sent as
the page is left carries the deepest scroll (100 on a page scrolled to its end). The core
alone sends none of them."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.analytics.serving import collecting
from tests.e2e.analytics.test_script_browser import (
    Collector,
    open_in_chromium,
)

pytestmark = pytest.mark.browser

PAGE = """<!doctype html>
<meta charset="utf-8">
<title>Missing</title>
<script async src="http://127.0.0.1:{port}/js/{file}" {auto} data-sitelens-author="Ada"></script>
<div style="height: 5000px">tall</div>
<a id="file" href="/files/guide.pdf">guide</a>
<a id="out" href="http://127.0.0.1:{port}/landed">elsewhere</a>
<script>
document.getElementById('file').addEventListener('click', function (e) {{ e.preventDefault(); }});
addEventListener('load', function () {{
  setTimeout(function () {{
    window.scrollTo(0, document.documentElement.scrollHeight);
    setTimeout(function () {{
      document.getElementById('file').click();
      document.getElementById('out').click();
      fetch('/until-landed');
    }}, 100);
  }}, 100);
}});
</script>
"""
VARIANT = "script.outbound-links.file-downloads.404.scroll-depth.js"
# each page's script tag: the file, and the attributes that ask for extensions
SNIPPETS = {
    "/missing": (VARIANT, ""),
    "/missing-auto": ("script.js", 'data-auto="outbound,downloads,404,scroll"'),
    "/plain": ("script.js", ""),
}


LANDED: list[str] = []  # the paths the browser went on to
ARRIVED = threading.Event()  # the outbound click's navigation reached the server


# Chromium's virtual time waits only for the pending requests of the page shown, so two
# requests hold it where it could otherwise run out and end Chromium first (two full runs
# lost the engagement, the second with the first hold in place): the page left asks
# /until-landed, answered once the outbound click's navigation has arrived (a navigation is
# not among the requests waited for), and the page it lands on asks /once-engaged, answered
# once the engagement of the page left has arrived (that request belongs to the page left).
LANDED_PAGE = '<title>Landed</title><img src="/once-engaged">'


def page(path: str, collector: Collector) -> tuple[int, str]:
    if path in SNIPPETS:
        file, auto = SNIPPETS[path]
        status = 200 if path == "/plain" else 404
        return status, PAGE.format(port=collector.port, file=file, auto=auto)
    if path == "/until-landed":
        ARRIVED.wait(10.0)
        return 204, ""
    if path == "/once-engaged":
        collector.posts_once(lambda posts: any("engagement_ms" in s.form for s in posts), 10.0)
        return 404, ""
    if path == "/favicon.ico":  # not a navigation: it must not release /until-landed
        return 404, ""
    LANDED.append(path)
    ARRIVED.set()
    return 200, LANDED_PAGE


@pytest.fixture
def collector() -> Iterator[Collector]:
    with collecting(page) as server:
        yield server


@pytest.mark.parametrize(
    ("path", "loaded"),
    [("/missing", [VARIANT]), ("/missing-auto", ["script.js", VARIANT])],
    ids=["variant", "data-auto"],
)
def test_automatic_events(collector: Collector, tmp_path: Path, path: str, loaded: list[str]):
    page = f"http://localhost:{collector.port}{path}"
    LANDED.clear()
    ARRIVED.clear()
    open_in_chromium(page, tmp_path)
    sent = [s.form for s in collector.posts(expected=5, timeout=10.0)]
    events = sorted(
        (form["event[name]"], json.loads(form["props"])) for form in sent if "event[name]" in form
    )
    assert events == [
        ("404", {"path": path}),
        ("File Download", {"url": f"http://localhost:{collector.port}/files/guide.pdf"}),
        ("Outbound Link: Click", {"url": f"http://127.0.0.1:{collector.port}/landed"}),
    ]
    assert all(form["page"] == page for form in sent)
    # the file data-auto loaded has the tag's other attributes too
    [pageview] = [form for form in sent if "screen_resolution" in form]
    assert json.loads(pageview["props"]) == {"author": "Ada"}
    engaged = [form for form in sent if "engagement_ms" in form]
    assert len(engaged) == 1, (sent, LANDED)
    [left] = engaged
    assert left["scroll_depth"] == "100"
    assert "/landed" in LANDED  # the outbound click's navigation went on
    assert collector.scripts == [f"/js/{file}" for file in loaded]


def test_nothing_automatic_without_data_auto(collector: Collector, tmp_path: Path) -> None:
    page = f"http://localhost:{collector.port}/plain"
    open_in_chromium(page, tmp_path)
    sent = [s.form for s in collector.posts(expected=2, timeout=3.0)]
    assert [form for form in sent if "event[name]" in form] == []
    assert all("scroll_depth" not in form for form in sent)
    assert collector.scripts == ["/js/script.js"]
