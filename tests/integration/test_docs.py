"""Each API describes itself: its OpenAPI document at /api/v1/openapi.json and a reference
page at /api/v1/docs, public and cacheable; the page renders every operation in Chromium.
The README is a front door (under 300 lines, the two commands, a link to every page of
docs/), and every relative link of the README and docs/ resolves, anchors included."""

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

from sitelens.edge import docs
from sitelens.local import STOP_POLL_SECONDS, gateway, openapi, template
from sitelens.local.front import request_handler
from tests.conftest import Client
from tests.e2e.analytics.test_script_browser import open_in_chromium

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
    # the repository's document, naming the base URL it was asked through as its server
    assert reply.body == {
        **openapi.document(APIS[api]),
        "servers": [{"url": "https://api.test", "description": "Where this document is served."}],
    }
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
            ("127.0.0.1", 0), request_handler(gateway.Gateway(api, routes))
        )
        servers.append(server)
        threading.Thread(
            target=server.serve_forever, args=(STOP_POLL_SECONDS,), daemon=True
        ).start()
        bases[api] = f"http://127.0.0.1:{server.server_address[1]}"
    yield bases
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.mark.slow  # about 3 s or more of a worker: make test-slow (CI)
@pytest.mark.browser
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
    served = json.loads(document["body"])
    [server] = served.pop("servers")
    assert server["url"].startswith("https://") and server["url"].endswith("/v1")  # the stage
    assert served.items() <= json.loads(docs.document("analytics").body).items()
    page = replay("docs-page")
    assert page["statusCode"] == 200 and "<title>" in page["body"]
    assert json.loads(docs.document("seo").body)["info"]["title"] in page["body"]


def test_a_stage_without_the_api_variable_has_no_docs(aws_env):
    event = json.loads((gateway.ROOT / "events" / "docs-page.json").read_text())
    event["stageVariables"] = None
    module = gateway.load_module(gateway.ROOT / "functions/docs/app.py")
    assert module.handler(event, gateway.LambdaContext("DocsFunction"))["statusCode"] == 404


ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def prose(text: str) -> str:
    """The text without fenced code blocks: headings and links live outside them."""
    return FENCE.sub("", text)


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the page's headings (lower case, punctuation dropped,
    spaces to hyphens, `-1`, `-2`... for repeats)."""
    seen: dict[str, int] = {}
    found = set()
    for line in prose(page.read_text()).splitlines():
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def relative_links(page: Path) -> list[str]:
    text = CODE_SPAN.sub("", prose(page.read_text()))
    return [
        target
        for target in LINK.findall(text)
        if not re.match(r"[a-z][a-z0-9+.-]*:", target)  # http:, https:, mailto:
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no such heading")
    assert not broken, broken


def test_the_readme_is_a_front_door() -> None:
    text = README.read_text()
    assert len(text.splitlines()) < 300, "the README is a front door: move details to docs/"
    blocks = re.findall(r"^```sh\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    commands = [line.split("#")[0].strip() for block in blocks for line in block.splitlines()]
    assert "make serve" in commands and "make test" in commands  # CI runs the README's test command
    linked = {
        (README.parent / target.partition("#")[0]).resolve() for target in relative_links(README)
    }
    unlinked = [page.name for page in PAGES[1:] if page.resolve() not in linked]
    assert not unlinked, f"the README links into every page of docs/: {unlinked}"
    # Figures of make bench live between docs/performance.md's markers, never pasted here.
    assert not re.search(r"\$\d", text), "a cost in the README: point to docs/performance.md"
