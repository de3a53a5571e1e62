"""The share pages in a real browser (Playwright on Debian's Chromium) against `make serve`:
the statistics page's chart (with an annotation's marker) and totals drawn with the query
API's numbers at desktop and phone widths, the password flow and its cookie, a password
change while the cookie is held, the 404 of a private record, and the report page on
screen and in print."""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_local_server import Server, call

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
CHROME = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)


def website(server: Server, key: str, **fields: str) -> dict[str, Any]:
    domain = f"shop-{uuid.uuid4().hex[:10]}.example"
    reply = call(
        "POST", f"{server.analytics}/api/v1/websites", key, form={"domain": domain, **fields}
    )
    assert reply.status == 201, reply.body
    data: dict[str, Any] = reply.data if hasattr(reply, "data") else reply.body["data"]
    return data


def track(server: Server, domain: str, pages: list[str]) -> None:
    """Pageviews as the tracking script sends them, each a visit from a search engine."""
    import urllib.request
    from urllib.parse import urlencode

    for page in pages:
        body = urlencode(
            {"page": f"https://{domain}{page}", "referrer": "https://www.google.com/"}
        ).encode()
        request = urllib.request.Request(
            f"{server.analytics}/api/event",
            data=body,
            headers={"Content-Type": "application/x-www-form-urlencoded", "User-Agent": CHROME},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 202


def wait_for_pageviews(server: Server, key: str, website_id: int, expected: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        reply = call("GET", f"{server.analytics}/api/v1/stats/{website_id}?name=pageviews", key)
        if sum(row["count"] for row in reply.body["data"]) >= expected:
            return
        time.sleep(0.2)
    pytest.fail("the hits were not counted within 20 s")


def query_totals(server: Server, key: str, website_id: int) -> list[int]:
    """Visitors, visits and pageviews of the share page's default period, as the query API
    answers them, once the warehouse has the 5 pageviews."""
    body = {
        "site_id": website_id,
        "metrics": ["visitors", "visits", "pageviews"],
        "date_range": "30d",
    }
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        reply = call("POST", f"{server.analytics}/api/v1/query", key, json_body=body)
        assert reply.status == 200, reply.body
        [row] = reply.body["results"] or [{"metrics": [0, 0, 0]}]
        if row["metrics"][2] >= 5:
            return list(row["metrics"])
        time.sleep(0.2)
    pytest.fail("the warehouse did not answer within 20 s")


@pytest.mark.slow  # about 3 s or more of a worker: make test-slow (CI)
def test_the_statistics_page_draws_the_counted_numbers(server, dev_key, chromium, tmp_path: Path):
    record = website(server, dev_key)
    track(server, record["domain"], ["/", "/pricing", "/pricing", "/blog", "/"])
    wait_for_pageviews(server, dev_key, record["id"], 5)
    totals = query_totals(server, dev_key, record["id"])
    today = time.strftime("%Y-%m-%d", time.gmtime())
    note = call(
        "POST",
        f"{server.analytics}/api/v1/websites/{record['id']}/annotations",
        dev_key,
        form={"date": today, "text": "Deployed v2"},
    )
    assert note.status == 201, note.body
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = chromium.new_page(viewport=viewport)
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(f"{server.analytics}/share/{record['domain']}")
        page.locator("#chart[data-points]").wait_for()  # drawn (a DOM wait: the CSP forbids eval)
        drawn = page.evaluate(
            "() => window.sitelensChart.data.slice(1).map(s => s.reduce((a, b) => a + b, 0))"
        )
        # visitors, visits, pageviews, summed over the period's days (all today): the query
        # API's figures, as the totals
        assert drawn == totals
        assert page.inner_text("#total-visitors") == str(totals[0])
        assert page.inner_text("#total-visits") == str(totals[1])
        assert page.inner_text("#total-pageviews") == "5"
        assert page.locator("canvas").count() >= 1
        # the annotation is drawn on the chart, on its day, with its text
        marker = page.locator("#chart .u-annotation")
        assert marker.count() == 1 and marker.inner_text() == "Deployed v2"
        assert marker.is_visible()
        pages_table = page.inner_text("#pages")
        assert "/pricing" in pages_table and "2" in pages_table
        # nothing overflows the phone's width
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= viewport["width"]
        assert errors == []  # no CSP violation, no script error
        page.screenshot(path=str(tmp_path / f"website-{name}.png"), full_page=True)
        page.close()


def test_the_period_picker_changes_the_period(server, dev_key, chromium):
    record = website(server, dev_key)
    page = chromium.new_page(viewport=DESKTOP)
    page.goto(f"{server.analytics}/share/{record['domain']}")
    page.select_option("#period", "7d")
    page.click("form.period button[type=submit] >> nth=0")
    page.wait_for_url("**period=7d**")
    page.locator("#chart[data-points]").wait_for()  # drawn (a DOM wait: the CSP forbids eval)
    assert page.evaluate("() => window.sitelensChart.data[0].length") == 7
    page.close()


def test_the_password_flow_and_a_password_change(server, dev_key, chromium):
    record = website(server, dev_key, privacy="2", password="correct-horse")
    context = chromium.new_context(viewport=PHONE)
    page = context.new_page()
    url = f"{server.analytics}/share/{record['domain']}"
    answer = page.goto(url)
    assert answer.status == 401
    assert page.locator("input[type=password]").count() == 1
    page.fill("#password", "wrong-horse")
    page.click("button[type=submit]")
    assert "not right" in page.inner_text("[role=alert]")
    page.fill("#password", "correct-horse")
    page.click("button[type=submit]")
    page.locator("#chart[data-points]").wait_for()  # drawn (a DOM wait: the CSP forbids eval)
    [cookie] = context.cookies()
    # Secure wherever the base is https (deployed); make serve's plain http leaves it out,
    # or a client's cookie jar would keep the cookie and never send it back
    secure = server.analytics.startswith("https://")
    assert cookie["httpOnly"] and cookie["secure"] is secure and cookie["sameSite"] == "Lax"
    assert page.evaluate("() => document.cookie") == ""  # not readable by scripts
    # the owner changes the password: the cookie held stops working at once
    changed = call(
        "PUT",
        f"{server.analytics}/api/v1/websites/{record['id']}",
        dev_key,
        form={"password": "new-horse"},
    )
    assert changed.status == 200
    assert page.reload().status == 401
    assert page.locator("input[type=password]").count() == 1
    context.close()


def test_a_private_record_is_a_404_page(server, dev_key, chromium):
    record = website(server, dev_key, privacy="1")
    page = chromium.new_page()
    assert page.goto(f"{server.analytics}/share/{record['domain']}").status == 404
    assert "Resource not found." in page.inner_text("h1")
    assert page.goto(f"{server.analytics}/share/nothing-here.example").status == 404
    page.close()


def test_the_report_page_on_screen_and_in_print(server, dev_key, chromium, site, tmp_path: Path):
    # the shared server fetches private addresses: the fixture site is on 127.0.0.1
    created = call("POST", f"{server.seo}/api/v1/reports", dev_key, form={"url": site.url("/good")})
    assert created.status == 201, created.body
    report = created.body["data"]
    page = chromium.new_page(viewport=DESKTOP)
    page.goto(report["share_url"])
    assert page.inner_text("#score") == str(report["score"])
    assert page.inner_text("#band") == report["result"].capitalize()
    assert page.locator("li.check").count() == len(report["results"])
    failed = [key for key, result in report["results"].items() if not result["passed"]]
    for key in failed:
        assert "Failed" in page.inner_text(f"#check-{key} .verdict")
    page.screenshot(path=str(tmp_path / "report-desktop.png"), full_page=True)
    page.emulate_media(media="print")
    assert page.locator("header.bar").is_hidden()
    pdf = page.pdf()
    assert pdf.startswith(b"%PDF") and len(pdf) > 10_000
    page.set_viewport_size(PHONE)
    page.emulate_media(media="screen")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    page.close()
