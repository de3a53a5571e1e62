"""Documents to send under `make serve` (issue 45, part 2): a report's and an audit run's
PDF fetched over HTTP as a client saves them (the bytes, not base64), read as text; the
change list of a first run refused in JSON."""

from __future__ import annotations

import io
import time
import urllib.request
from urllib.error import HTTPError

from pypdf import PdfReader

from tests.e2e.test_local_server import OPENER, call


def fetched(url: str, key: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    try:
        with OPENER.open(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except HTTPError as err:
        return err.code, dict(err.headers), err.read()


def text_of(body: bytes) -> str:
    pages = PdfReader(io.BytesIO(body)).pages
    return " ".join(" ".join((page.extract_text() or "").split()) for page in pages)


def test_pdfs_are_served_as_files(server, dev_key, site):
    report = call("POST", f"{server.seo}/api/v1/reports", dev_key, form={"url": site.url("/good")})
    assert report.status == 201, report.body
    status, headers, body = fetched(
        f"{server.seo}/api/v1/reports/{report.body['data']['id']}/export.pdf", dev_key
    )
    assert status == 200
    assert headers["Content-Type"] == "application/pdf"
    assert headers["Content-Disposition"].startswith("attachment;")
    assert body.startswith(b"%PDF-")
    assert f"SEO report of {report.body['data']['url']}" in text_of(body)

    created = call(
        "POST",
        f"{server.seo}/api/v1/audits",
        dev_key,
        form={"url": site.url("/good"), "max_pages": "5"},
    )
    assert created.status == 201, created.body
    path = f"{server.seo}/api/v1/audits/{created.body['data']['id']}"
    deadline = time.monotonic() + 60
    while call("GET", path, dev_key).body["data"]["status"] != "done":
        assert time.monotonic() < deadline, "the audit did not finish"
        time.sleep(0.2)
    status, headers, body = fetched(f"{path}/runs/1/export.pdf", dev_key)
    assert status == 200 and headers["Content-Type"] == "application/pdf"
    assert "This is the audit's first run" in text_of(body)
    status, headers, body = fetched(f"{path}/runs/1/changes.csv", dev_key)
    assert status == 422 and headers["Content-Type"] == "application/json"
    assert fetched(f"{path}/runs/2/export.pdf", dev_key)[0] == 404
