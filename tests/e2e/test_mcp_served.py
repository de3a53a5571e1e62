"""The MCP server at `/mcp` under `make serve`'s program, used by the official SDK's own client
(`mcp.client.streamable_http`) as an assistant would: a key with write access lists every
tool and calls them; a read key lists only the reading tools, and a write it calls anyway is
refused as the API refuses it; errors are tool results carrying the API's message."""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.e2e.test_local_server import Server, call

pytestmark = pytest.mark.e2e

WRITE_TOOLS = {"create_annotation", "start_export", "create_report", "start_audit"}
READ_TOOLS = {
    "list_websites",
    "query_stats",
    "realtime_visitors",
    "list_goals",
    "list_funnels",
    "list_annotations",
    "get_export",
    "get_report",
    "list_reports",
    "get_audit",
    "audit_issues",
    "audit_diff",
}


def session_of(base: str, key: str, use: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    """Run `use` with an initialized client session on `base`'s /mcp, as `key`."""

    async def main() -> Any:
        headers = {"Authorization": f"Bearer {key}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=10) as http,
            streamable_http_client(f"{base}/mcp", http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await use(session)

    return anyio.run(main)


@pytest.fixture(scope="module")
def account(server: Server, dev_key: str) -> dict[str, Any]:
    """The module's account: its key, a read key of it, and a website."""
    domain = f"mcp-{uuid.uuid4().hex[:10]}.example.com"
    site = call("POST", f"{server.analytics}/api/v1/websites", dev_key, form={"domain": domain})
    read = call("POST", f"{server.analytics}/api/v1/keys", dev_key, form={"name": "assistant"})
    assert site.status == read.status == 201
    return {"key": dev_key, "read_key": read.body["data"]["key"], "site": site.body["data"]}


def test_a_write_key_lists_every_tool_and_calls_them(server, account):
    site = account["site"]["id"]

    async def use(session: ClientSession) -> dict[str, Any]:
        listed = await session.list_tools()
        made = await session.call_tool(
            "create_annotation", {"website_id": site, "date": "2026-11-02", "text": "Launch"}
        )
        annotations = await session.call_tool("list_annotations", {"website_id": site})
        websites = await session.call_tool("list_websites", {"per_page": 10})
        stats = await session.call_tool(
            "query_stats", {"site_id": site, "metrics": ["visitors"], "date_range": "7d"}
        )
        return {
            "tools": {tool.name: tool for tool in listed.tools},
            "made": made,
            "annotations": annotations,
            "websites": websites,
            "stats": stats,
        }

    got = session_of(server.analytics, account["key"], use)
    assert set(got["tools"]) == READ_TOOLS | WRITE_TOOLS
    # typed inputs: the API's models, ids as the path carries them
    schema = got["tools"]["create_annotation"].input_schema
    assert {"website_id", "date", "text"} <= set(schema["required"])
    assert got["made"].is_error is False
    assert got["made"].structured_content["status"] == 201
    assert got["made"].structured_content["data"]["text"] == "Launch"
    texts = [a["text"] for a in got["annotations"].structured_content["data"]]
    assert texts == ["Launch"]
    sites = got["websites"].structured_content
    assert site in [w["id"] for w in sites["data"]]
    assert set(sites["meta"]) >= {"next_cursor", "per_page"}
    assert got["stats"].is_error is False
    assert got["stats"].structured_content["results"] == [{"metrics": [0], "dimensions": []}]


def test_the_same_server_answers_on_the_seo_base(server, account):
    async def use(session: ClientSession) -> Any:
        return await session.call_tool("list_reports", {})

    got = session_of(server.seo, account["key"], use)
    assert got.is_error is False
    assert got.structured_content["data"] == []


def test_a_read_key_sees_read_tools_only_and_a_write_is_refused_as_the_api_would(server, account):
    site = account["site"]["id"]

    async def use(session: ClientSession) -> tuple[Any, Any]:
        listed = await session.list_tools()
        refused = await session.call_tool(
            "create_annotation", {"website_id": site, "date": "2026-11-02", "text": "No"}
        )
        return listed, refused

    listed, refused = session_of(server.analytics, account["read_key"], use)
    assert {tool.name for tool in listed.tools} == READ_TOOLS
    assert refused.is_error is True
    assert json.loads(refused.content[0].text) == {"message": "Forbidden.", "status": 403}
    over_http = call(
        "POST",
        f"{server.analytics}/api/v1/websites/{site}/annotations",
        account["read_key"],
        form={"date": "2026-11-02", "text": "No"},
    )
    assert over_http.status == 403
    assert over_http.body == json.loads(refused.content[0].text)


def test_errors_are_tool_results_with_the_apis_message(server, account):
    async def use(session: ClientSession) -> tuple[Any, Any]:
        missing = await session.call_tool("get_report", {"report_id": 999_999})
        invalid = await session.call_tool(
            "create_annotation", {"website_id": account["site"]["id"], "date": "soon"}
        )
        return missing, invalid

    missing, invalid = session_of(server.analytics, account["key"], use)
    assert missing.is_error is True
    assert json.loads(missing.content[0].text) == {"message": "Resource not found.", "status": 404}
    assert invalid.is_error is True
    body = json.loads(invalid.content[0].text)
    assert body["status"] == 422
    assert set(body["message"]) == {"date", "text"}


def test_get_and_delete_are_405_allowing_post(server):
    """Stateless: no event stream to open (GET), no session to end (DELETE)."""
    for method in ("GET", "DELETE"):
        reply = call(method, f"{server.analytics}/mcp")
        assert reply.status == 405, method
        assert reply.headers["Allow"] == "POST"
