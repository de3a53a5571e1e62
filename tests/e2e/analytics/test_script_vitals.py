"""The tracking script's Core Web Vitals in headless Chromium (`script.web-vitals.js`): a
page with a known LCP element and a layout shift of known size sends, with its first
engagement (here, when a single-page app shows another page), LCP, CLS, FCP and TTFB, once
per page view. (INP needs a trusted input, which a page cannot make of itself.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.analytics.serving import collecting
from tests.e2e.analytics.test_script_browser import (
    Collector,
    open_in_chromium,
)

pytestmark = pytest.mark.browser

# One layout shift, of the score the browser gives it (recorded by the page itself): the
# script's CLS is that shift's session window
PAGE = """<!doctype html>
<meta charset="utf-8">
<title>Vitals</title>
<style>body {{ margin: 0 }} #hero {{ height: 300px; background: #345 }}</style>
<script async src="http://127.0.0.1:{port}/js/script.web-vitals.js"></script>
<div id="spacer"></div>
<div id="hero"><p style="font-size: 64px">The largest text of the page</p></div>
<script>
// Event-driven, not timed: the block moves once the page has been painted, and the
// single-page app moves on once the browser has reported the shift
var shifts = 0;
var moved = false;
function moveOn() {{
  if (moved) return;
  moved = true;
  document.documentElement.dataset.expected = String(shifts);
  history.pushState({{}}, '', '/next');
}}
new PerformanceObserver(function (list) {{
  list.getEntries().forEach(function (entry) {{ shifts += entry.value; }});
  setTimeout(moveOn, 100);
}}).observe({{type: 'layout-shift'}});
addEventListener('load', function () {{ setTimeout(moveOn, 3000); }});  // never stuck
new PerformanceObserver(function (list) {{
  if (list.getEntriesByName('first-contentful-paint').length) {{
    setTimeout(function () {{
      document.getElementById('spacer').style.height = '150px';
    }}, 100);
  }}
}}).observe({{type: 'paint', buffered: true}});
</script>
"""


@pytest.fixture
def collector() -> Iterator[Collector]:
    with collecting(lambda path, server: (200, PAGE.format(port=server.port))) as server:
        yield server


def test_vitals_are_sent_once_with_the_first_engagement(collector: Collector, tmp_path: Path):
    page = f"http://localhost:{collector.port}/article"
    dom = open_in_chromium(page, tmp_path)
    expected = float(dom.split('data-expected="')[1].split('"')[0])
    # the browser scores the shift (about 0.2 in a default window); a browser too loaded
    # to paint before it (no shift then) must still agree with the script
    sent = [s.form for s in collector.posts(expected=3, timeout=3.0)]
    with_vitals = [form for form in sent if "cls" in form]
    assert len(with_vitals) == 1  # once per page view, whatever follows
    [first] = with_vitals
    assert first["page"] == page and "engagement_ms" in first
    assert abs(float(first["cls"]) - expected) < 0.001, (first, expected)
    # LCP and FCP as the browser reported them by then (a loaded machine may be later)
    assert 0 < float(first.get("fcp", 1)) <= float(first.get("lcp", 1e9))
    assert float(first["ttfb"]) >= 0
    assert "inp" not in first  # no interaction
