"""The SSRF guard around Chromium (audits.chromium): every request a rendered page makes,
subresources included, goes through the crawler's fetcher or nowhere. A page served as the
crawler fetched it (no request for it) asks for a same-host script on 127.0.0.1, another
scheme and a WebSocket: none reaches the fixture server, and the page says each failed."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from sitelens.audits import chromium, fetching
from sitelens.core import config
from tests.fixtures import browsers
from tests.integration.audits.small_site import SmallSite

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # a browser launched: seconds

PAGE = """<!doctype html><title>Guarded</title><body><p id=out></p><script>
const out = document.getElementById('out');
const note = (what) => { out.textContent += what + ' '; };
fetch('BASE/secret.json').then(() => note('secret-read')).catch(() => note('secret-refused'));
fetch('file:///etc/hostname').then(() => note('file-read')).catch(() => note('file-refused'));
const ws = new WebSocket('WS/socket');
ws.onopen = () => note('socket-open');
ws.onerror = () => note('socket-refused');
</script></body>"""


@pytest.fixture
def site(monkeypatch) -> Iterator[SmallSite]:
    served = SmallSite({"/secret.json": (200, {"Content-Type": "application/json"}, "{}")})
    monkeypatch.delenv("SITELENS_ALLOW_PRIVATE_URLS", raising=False)  # the deployed rule
    config.reset()
    yield served
    served.close()
    config.reset()


def render(site: SmallSite) -> chromium.Rendered:
    from playwright.sync_api import sync_playwright

    body = PAGE.replace("BASE", site.base).replace("WS", site.base.replace("http", "ws"))
    with sync_playwright() as playwright:
        browser = chromium.launch(playwright, browsers.executable())
        try:
            return chromium.render_page(browser, site.url("/"), body, fetching.SITELENS)
        finally:
            browser.close()


def notes(rendered: chromium.Rendered) -> set[str]:
    """What the page's script wrote into its `#out` paragraph."""
    assert rendered.html is not None, rendered.error
    found = re.search(r'<p id="out">([^<]*)</p>', rendered.html)
    return set(found.group(1).split()) if found else set()


def test_private_addresses_other_schemes_and_sockets_never_reach_the_network(site):
    rendered = render(site)
    assert rendered.error is None
    said = notes(rendered)
    assert "secret-refused" in said and "secret-read" not in said
    assert "file-read" not in said and "socket-open" not in said
    assert site.requests == []  # not the script's fetch, not the socket's upgrade
    assert rendered.refused >= 1


def test_with_private_addresses_allowed_the_same_fetch_goes_through_the_fetcher(site, monkeypatch):
    """The control: the fetch refused above is the guard's doing (make serve's setting)."""
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    config.reset()
    rendered = render(site)
    assert "secret-read" in notes(rendered)
    assert site.paths() == ["/secret.json"]  # and still no socket
