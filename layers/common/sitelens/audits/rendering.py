"""A crawled HTML page read for its facts and checks: its raw HTML, or, for an audit with
`render: js`, the DOM after its scripts ran, rendered in headless Chromium
(`audits.chromium`) and then read by the very same parser and page checks as raw HTML.

Where the page is rendered: the render function (`SITELENS_RENDER_FUNCTION`, a container
image with Chromium, invoked once a page: `data.renderers`), or, without one (make serve,
tests), Debian's Chromium in this process. A page that cannot be rendered is read from its
raw HTML, says why in its `rendering` field, and is counted (AuditPagesNotRendered).

A rendered page's links are those of the rendered DOM and of the raw HTML together (a
script may remove a link it replaces: the crawl still follows it); its stored facts are
the rendered DOM's, with the raw-versus-rendered diff (`app_shells.diff`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sitelens.audits import app_shells, facts, reasons, visiting
from sitelens.audits.urls import Scope
from sitelens.core import metrics
from sitelens.core.config import settings
from sitelens.core.log import logger
from sitelens.seo import analysis
from sitelens.seo.analysis import Report
from sitelens.seo.page import Response, Site

# The page the crawler fetched goes to the render function with the request when it is at
# most this long (a synchronous invocation carries 6 MB); a longer one is fetched again there.
MAX_SENT_BODY = 2 * 1024 * 1024
NOT_RENDERED = "The page could not be rendered: the render function failed or was busy."


def read(
    state: dict[str, Any], url: str, response: Response, scope: Scope
) -> tuple[facts.Parsed, Report]:
    """The page's facts (with its report's score, failing checks and their reasons) and
    the URLs it leads to, as the audit's `render` setting reads it; and the report."""
    parsed = facts.parse(url, response.body, response.headers, scope)
    page = response
    if state.get("render") == "js":
        rendered = _render(state, url, response.body)
        if rendered.get("html") is None:
            error = rendered.get("error") or NOT_RENDERED
            parsed.facts["rendering"] = app_shells.failed(parsed.facts, error)
        else:
            raw = parsed
            page = dataclasses.replace(response, body=rendered["html"].encode())
            parsed = facts.parse(url, page.body, response.headers, scope)
            parsed.facts["rendering"] = app_shells.diff(raw.facts, parsed.facts)
            parsed.targets = list(dict.fromkeys([*parsed.targets, *raw.targets]))
    elif (shell := app_shells.shell(parsed.facts, response.body)) is not None:
        parsed.facts["rendering"] = shell
    report = analysis.analyse(Site(page=page))
    parsed.facts["score"] = report.score
    parsed.facts["failed_checks"] = sorted(k for k, r in report.results.items() if not r["passed"])
    parsed.facts["reasons"] = reasons.of_results(dict(report.results))
    return parsed, report


def _render(state: dict[str, Any], url: str, body: bytes) -> dict[str, Any]:
    """The page rendered where this stack renders: `{html, error, requests, refused}`."""
    identity = visiting.identity(state)
    text = body.decode("utf-8", "replace") if len(body) <= MAX_SENT_BODY else None
    if settings().render_function:
        from sitelens.data import renderers

        request = {"url": url, "body": text, "identity": dataclasses.asdict(identity)}
        try:
            answer = renderers.render(request)
        except Exception:
            logger.exception("page not rendered", extra={"crawl": state.get("crawl")})
            metrics.count("AuditPagesNotRendered", reason="function")
            return {"html": None, "error": NOT_RENDERED}
    else:
        from sitelens.audits import chromium

        answer = chromium.local_render(url, text, identity).as_dict()
    if answer.get("html") is None:
        metrics.count("AuditPagesNotRendered", reason="page")
    return answer
