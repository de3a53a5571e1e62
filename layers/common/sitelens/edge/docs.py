"""The API's own description: its OpenAPI document (`GET /api/v1/openapi.json`) and a
reference page that renders it (`GET /api/v1/docs`, Redoc, served from the layer with its
integrity hash, so the page needs no third-party host).

The document served names one server, the base URL it was asked through (a stage, a
custom domain, `make serve`'s port), so a client or a fuzzer reading it calls that API.

`openapi/<api>.json` is generated from the repository's `openapi/<api>.yaml` by
`make openapi` (`sitelens.local.openapi`; a test fails when it is stale).

Beside them, the MCP server's protected resource metadata (RFC 9728), which its 401 points to.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from sitelens.core import errors
from sitelens.edge.http import Request, Response, cacheable

REDOC_VERSION = "2.5.0"
# The SHA-384 of `assets/redoc.standalone.js` from npm's redoc@2.5.0 (bundles/): the page
# names it, so a browser runs that file and no other.
REDOC_INTEGRITY = "sha384-4vOjrBu7SuDWXcAw1qFznVLA/sKL+0l4nn+J1HY8w7cpa6twQEYuh4b0Cwuo7CyX"
JSON_TYPE = "application/json"
HTML_TYPE = "text/html; charset=utf-8"
SCRIPT_TYPE = "application/javascript; charset=utf-8"
# Documents change with deploys: cached briefly, revalidated by ETag.
DOCUMENT_CACHE = "public, max-age=300"
# The bundle is pinned and checked by its hash: a day, then revalidated.
SCRIPT_CACHE = "public, max-age=86400"


@dataclass(frozen=True)
class Asset:
    body: str
    etag: str
    content_type: str
    cache_control: str


def _asset(body: str, content_type: str, cache_control: str) -> Asset:
    etag = f'"{hashlib.sha256(body.encode()).hexdigest()[:32]}"'
    return Asset(body, etag, content_type, cache_control)


@cache
def _packaged(api: str) -> str:
    return resources.files("sitelens.edge").joinpath(f"openapi/{api}.json").read_text("utf-8")


@lru_cache(maxsize=16)  # one base URL a deployment, a few locally; bounded whatever is sent
def document(api: str, base_url: str | None = None) -> Asset:
    """The OpenAPI document of `api` ("analytics" or "seo"), as JSON; with `base_url`, its
    `servers` is that URL alone (as packaged, the deployed and `make serve` patterns)."""
    text = _packaged(api)
    if base_url is not None:
        described = json.loads(text)
        described["servers"] = [{"url": base_url, "description": "Where this document is served."}]
        text = json.dumps(described, separators=(",", ":"), ensure_ascii=False) + "\n"
    return _asset(text, JSON_TYPE, DOCUMENT_CACHE)


MCP_METADATA_PATH = "/.well-known/oauth-protected-resource/mcp"


@lru_cache(maxsize=16)
def mcp_metadata(base_url: str) -> Asset:
    """What `/mcp` at `base_url` is and how to reach it (RFC 9728): a bearer key in the
    `Authorization` header, of read or write access. It names no authorization server: there
    is none yet (docs/mcp.md, "Keys, and OAuth later")."""
    described = {
        "resource": f"{base_url}/mcp",
        "resource_name": "Sitelens MCP server",
        "bearer_methods_supported": ["header"],
        "scopes_supported": ["read", "write"],
        "resource_documentation": f"{base_url}/api/v1/docs",
    }
    return _asset(json.dumps(described, separators=(",", ":")), JSON_TYPE, DOCUMENT_CACHE)


@cache
def redoc_script() -> Asset:
    bundle = resources.files("sitelens.edge").joinpath("assets/redoc.standalone.js")
    text = bundle.read_text("utf-8")
    return _asset(text, SCRIPT_TYPE, SCRIPT_CACHE)


def integrity(text: str) -> str:
    """A Subresource Integrity value (SHA-384) for `text`."""
    return "sha384-" + base64.b64encode(hashlib.sha384(text.encode()).digest()).decode()


@cache
def page(api: str) -> Asset:
    """The reference page: Redoc reading `openapi.json` beside it (relative URLs, so the
    page works under a stage prefix or a custom domain alike)."""
    title = json.loads(document(api).body)["info"]["title"]
    html = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
</head>
<body>
<div id="redoc"></div>
<script src="docs/redoc.js" integrity="{REDOC_INTEGRITY}"></script>
<script>Redoc.init("openapi.json", {{}}, document.getElementById("redoc"));</script>
</body>
</html>
"""
    return _asset(html, HTML_TYPE, DOCUMENT_CACHE)


APIS = ("analytics", "seo")


def respond(request: Request) -> Response:
    """The document, the page or the page's script of the API the request came through
    (its stage variable `api`), by the route asked for."""
    api = request.stage_variables.get("api", "")
    if api not in APIS:
        raise errors.NotFound()
    assets: dict[str, Callable[[], Asset]] = {
        "/api/v1/openapi.json": lambda: document(api, request.base_url),
        "/api/v1/docs": lambda: page(api),
        "/api/v1/docs/redoc.js": redoc_script,
        MCP_METADATA_PATH: lambda: mcp_metadata(request.base_url),
    }
    make = assets.get(request.resource)
    if make is None:
        raise errors.NotFound()
    asset = make()
    return cacheable(request, asset.body, asset.etag, asset.content_type, asset.cache_control)
