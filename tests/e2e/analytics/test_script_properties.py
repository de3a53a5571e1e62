"""The tracking script's custom properties and revenue in headless Chromium: a pageview
carries the script tag's data-sitelens-* attributes, and sitelens.event(name, {props,
revenue}) sends them as POST /api/event takes them (`core.properties`)."""

from __future__ import annotations

import json
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
<title>Properties</title>
<script async src="http://127.0.0.1:{port}/js/script.js"
  data-sitelens-author="Ada" data-sitelens-post-type="essay"></script>
<script>
window.sitelens = window.sitelens || {{event: function () {{
  (window.sitelens.q = window.sitelens.q || []).push(arguments) }}}};
sitelens.event('Purchase', {{props: {{plan: 'pro', seats: 3}},
  revenue: {{amount: 19.99, currency: 'EUR'}}}});
</script>
"""


@pytest.fixture
def collector() -> Iterator[Collector]:
    with collecting(lambda path, server: (200, PAGE.format(port=server.port))) as server:
        yield server


def test_page_properties_and_an_event_with_revenue(collector: Collector, tmp_path: Path) -> None:
    page = f"http://localhost:{collector.port}/article"
    assert "<title>Properties</title>" in open_in_chromium(page, tmp_path)
    sent = [s.form for s in collector.posts(expected=2, timeout=3.0)]
    [pageview] = [form for form in sent if "screen_resolution" in form]
    [event] = [form for form in sent if "event[name]" in form]
    assert json.loads(pageview["props"]) == {"author": "Ada", "post-type": "essay"}
    assert event == {
        "page": page,
        "event[name]": "Purchase",
        "props": '{"plan":"pro","seats":3}',
        "revenue[amount]": "19.99",
        "revenue[currency]": "EUR",
    }
