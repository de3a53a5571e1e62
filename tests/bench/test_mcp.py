"""MCP tool latency over `make serve`: the SDK's own client (`mcp.client.streamable_http`)
calling tools of the server at `/mcp` as an assistant does, each call one POST through the
local gateway, the key's check, the SDK's stateless transport (through mangum) and the tool.
p50 and p95 of each tool's calls, and of `tools/list`.

25 calls a tool (10 in quick mode), on a website with 20 annotations and no hits: about 10 s on
two idle cores, most of it make serve's start."""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.bench import report, timing
from tests.e2e.test_local_server import call, start_server

CALLS = 10 if timing.QUICK else 25
KEY = "sl_bench_mcp_" + uuid.uuid4().hex


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def timed(samples: list[float], step: Callable[[], Awaitable[Any]]) -> Callable[[], Awaitable[Any]]:
    async def run() -> Any:
        started = time.perf_counter()
        found = await step()
        samples.append((time.perf_counter() - started) * 1000)
        return found

    return run


def test_mcp_tool_latency() -> None:
    server = start_server(SITELENS_DEV_API_KEY=KEY, POWERTOOLS_LOG_LEVEL="WARNING")
    try:
        base = server.analytics
        made = call("POST", f"{base}/api/v1/websites", KEY, form={"domain": "mcp.example.com"})
        site = made.body["data"]["id"]
        for n in range(20):
            form = {"date": f"2026-10-{n + 1:02d}", "text": f"Deploy {n}"}
            call("POST", f"{base}/api/v1/websites/{site}/annotations", KEY, form=form)
        asked: dict[str, tuple[str, dict[str, Any]]] = {
            "list_websites": ("list_websites", {"per_page": 10}),
            "query_stats": (
                "query_stats",
                {"site_id": site, "metrics": ["visitors", "pageviews"], "date_range": "7d"},
            ),
            "list_annotations": ("list_annotations", {"website_id": site}),
        }
        samples: dict[str, list[float]] = {name: [] for name in [*asked, "tools/list"]}

        async def main() -> None:
            headers = {"Authorization": f"Bearer {KEY}"}
            async with (
                httpx2.AsyncClient(headers=headers, timeout=10) as http,
                streamable_http_client(f"{base}/mcp", http_client=http) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                await session.list_tools()  # warm: each function's first call imports it
                for tool, arguments in asked.values():
                    assert (await session.call_tool(tool, arguments)).is_error is False
                for _ in range(CALLS):
                    await timed(samples["tools/list"], session.list_tools)()
                    for name, (tool, arguments) in asked.items():

                        async def step(tool: str = tool, arguments: Any = arguments) -> Any:
                            return await session.call_tool(tool, arguments)

                        result = await timed(samples[name], step)()
                        assert result.is_error is False, result

        anyio.run(main)
    finally:
        server.stop()
    report.RESULTS["mcp_tools"] = {
        name: {
            "p50_ms": round(statistics.median(found), 1),
            "p95_ms": round(percentile(found, 0.95), 1),
            "calls": len(found),
        }
        for name, found in samples.items()
    }
    report.CONTEXT["mcp_tools"] = {
        "client": "the mcp SDK's ClientSession over streamable_http_client, one session",
        "server": "make serve's program (stateless Streamable HTTP, JSON answers, via mangum)",
        "data": "one website, 20 annotations, no hits",
    }
