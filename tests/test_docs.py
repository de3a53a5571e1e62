"""Each API describes itself: its OpenAPI document at /api/v1/openapi.json and a reference
page at /api/v1/docs, public and cacheable; the page renders every operation in Chromium."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from sitelens.edge import docs
from sitelens.local import gateway, openapi, template
from sitelens.local.server import _request_handler
from tests.analytics.test_script_browser import CHROMIUM, open_in_chromium
from tests.conftest import Client

APIS = {"AnalyticsApi": "analytics", "SeoApi": "seo"}


@pytest.mark.parametrize("api", openapi.APIS)
def test_the_served_documents_are_the_repository_s(api):
    packaged = (openapi.PACKAGED / f"{api}.json").read_text()
    assert packaged == openapi.as_json(api), "run `make openapi`"


@pytest.mark.parametrize("api", APIS)
def test_the_document_is_public_json_and_cacheable(aws_env, api):
    client = Client(api, key=None)
    reply = client.get("/api/v1/openapi.json")
    assert reply.status == 200
    assert reply.headers["Content-Type"] == "application/json"
    assert reply.body == yaml.safe_load((openapi.SOURCES / f"{APIS[api]}.yaml").read_text())
    assert reply.headers["Cache-Control"].startswith("public")
    again = client.get("/api/v1/openapi.json", headers={"If-None-Match": reply.headers["ETag"]})
    assert again.status == 304 and again.body is None


@pytest.mark.parametrize("api", APIS)
def test_the_page_loads_its_pinned_script_by_integrity(aws_env, api):
    client = Client(api, key=None)
    page = client.get("/api/v1/docs")
    assert page.status == 200 and page.headers["Content-Type"].startswith("text/html")
    [(src, integrity)] = re.findall(r'<script src="([^"]+)" integrity="([^"]+)">', page.body)
    assert src == "docs/redoc.js"  # relative: works under a stage prefix too
    script = client.get("/api/v1/docs/redoc.js")
    assert script.status == 200
    assert script.headers["Content-Type"].startswith("application/javascript")
    digest = base64.b64encode(hashlib.sha384(script.body.encode()).digest()).decode()
    assert integrity == f"sha384-{digest}"
    assert integrity == docs.REDOC_INTEGRITY == docs.integrity(docs.redoc_script().body)


@pytest.fixture
def served(aws_env) -> Iterator[dict[str, str]]:
    """Both APIs over HTTP, as `make serve` serves them: base URLs by API."""
    routes = template.routes(template.load())
    servers, bases = [], {}
    for api in APIS:
        server = ThreadingHTTPServer(
            ("127.0.0.1", 0), _request_handler(gateway.Gateway(api, routes))
        )
        servers.append(server)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        bases[api] = f"http://127.0.0.1:{server.server_address[1]}"
    yield bases
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="no chromium at /usr/bin/chromium or on PATH")
@pytest.mark.parametrize("api", APIS)
def test_the_page_renders_every_operation_in_chromium(served, tmp_path: Path, api):
    dom = open_in_chromium(f"{served[api]}/api/v1/docs", tmp_path)
    document = json.loads((openapi.PACKAGED / f"{APIS[api]}.json").read_text())
    summaries = [
        operation["summary"]
        for path in document["paths"].values()
        for method, operation in path.items()
        if method in ("get", "post", "put", "patch", "delete", "options")
    ]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom))
    missing = [summary for summary in summaries if summary.split("`")[0].strip() not in text]
    assert not missing, missing
    assert document["info"]["title"] in text


def replay(name: str) -> dict:
    """The events/ file through its function's handler, as `sam local invoke` would."""
    event = json.loads((gateway.ROOT / "events" / f"{name}.json").read_text())
    module = gateway.load_module(gateway.ROOT / "functions/docs/app.py")
    answer: dict = module.handler(event, gateway.LambdaContext("DocsFunction"))
    return answer


def test_the_events_replay_through_the_one_docs_function(aws_env):
    document = replay("docs-openapi")
    assert document["statusCode"] == 200
    assert json.loads(document["body"]) == json.loads(docs.document("analytics").body)
    page = replay("docs-page")
    assert page["statusCode"] == 200 and "<title>" in page["body"]
    assert json.loads(docs.document("seo").body)["info"]["title"] in page["body"]


def test_a_stage_without_the_api_variable_has_no_docs(aws_env):
    event = json.loads((gateway.ROOT / "events" / "docs-page.json").read_text())
    event["stageVariables"] = None
    module = gateway.load_module(gateway.ROOT / "functions/docs/app.py")
    assert module.handler(event, gateway.LambdaContext("DocsFunction"))["statusCode"] == 404
