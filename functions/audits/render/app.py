"""RenderFunction: one page rendered in headless Chromium behind the SSRF guard, for the
crawl workers of audits with `render: js` (sitelens.audits.rendering). A container image
(Dockerfile beside this file): the AWS Lambda Python base image with Chromium and
Playwright. The browser is launched once a container and kept for the next pages.

Event: `{url, body, identity}`; answer: `{html, error, requests, refused}`.
"""

from typing import Any

from sitelens.audits import chromium
from sitelens.core import metrics, scopes
from sitelens.core.log import logger

_browser: Any = None


def _chromium() -> Any:
    """The container's browser, launched at its first page (again if it crashed)."""
    global _browser
    if _browser is None or not _browser.is_connected():
        from playwright.sync_api import sync_playwright

        _browser = chromium.launch(sync_playwright().start(), chromium.find_chromium())
    return _browser


@logger.inject_lambda_context(clear_state=True)
@scopes.system  # keyless: it reads nothing stored, only the page its event names
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        identity = chromium.identity_of(event.get("identity") or {})
        rendered = chromium.render_page(_chromium(), event["url"], event.get("body"), identity)
        return rendered.as_dict()
    finally:
        metrics.flush()
