"""The MCP server's function through API Gateway proxy events (as `sam local invoke` runs it),
on moto: its key check and 401 challenge (the MCP authorization specification, RFC 9728's
metadata), the tools a key sees and may call, refusals and errors as the API words them,
resources and prompts. tests/e2e/test_mcp_served.py uses the SDK's client over HTTP."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sitelens import accounts, websites
from sitelens.accounts import keyring
from sitelens.audits import changes
from sitelens.core import errors, metrics, scopes
from sitelens.local import gateway
from tests.integration.test_events import KEY, event, invoke

pytestmark = pytest.mark.integration

BASE = "https://a1b2c3d4e5.execute-api.us-east-1.amazonaws.com/v1"
METADATA = f"{BASE}/.well-known/oauth-protected-resource/mcp"
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


def post(body: Any, key: str | None = KEY, raw: bytes | None = None) -> tuple[int, dict, Any]:
    """POST /mcp as the deployed stage would deliver it."""
    headers = {
        "Host": "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
    }
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    data = raw if raw is not None else json.dumps(body).encode()
    made = gateway.proxy_event("POST", "/mcp", "/mcp", headers=headers, body=data, stage="v1")
    return invoke(made)


def rpc(method: str, params: dict[str, Any], key: str = KEY) -> dict[str, Any]:
    status, _, body = post({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}, key)
    assert status == 200, body
    assert body["id"] == 7
    answer: dict[str, Any] = body
    return answer


def tool(name: str, arguments: dict[str, Any], key: str = KEY) -> dict[str, Any]:
    result: dict[str, Any] = rpc("tools/call", {"name": name, "arguments": arguments}, key)[
        "result"
    ]
    return result


def refusal(result: dict[str, Any]) -> Any:
    assert result["isError"] is True
    return json.loads(result["content"][0]["text"])


@pytest.fixture
def account(aws_env: None) -> accounts.Account:
    made = accounts.create_account("Assistant")
    accounts.add_key(made, "events", key=KEY)
    return made


@pytest.fixture
def website(account: accounts.Account) -> dict[str, Any]:
    status, _, body = invoke(event("websites-create"))
    assert status == 201, body
    return {**body["data"], "account": account}


def key_of(account: accounts.Account, scope: scopes.Scope) -> str:
    with scopes.within(scopes.SYSTEM):
        return str(keyring.store(account.id, "scoped", scope, None)["key"])


def test_the_events_replay(website):
    status, headers, body = invoke(event("mcp-tools-list"))
    assert status == 200, body
    assert headers["Content-Type"] == "application/json"
    assert {t["name"] for t in body["result"]["tools"]} >= READ_TOOLS
    status, _, body = invoke(event("mcp-tools-call"))
    assert status == 200, body
    assert body["result"]["structuredContent"] == {"data": [], "status": 200}


def test_a_missing_or_unknown_key_is_401_naming_the_resource_metadata(account):
    status, headers, body = post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, key=None)
    assert (status, body) == (401, {"message": "Unauthenticated.", "status": 401})
    assert headers["WWW-Authenticate"] == f'Bearer resource_metadata="{METADATA}"'
    status, headers, _ = post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, key="sl_no")
    assert status == 401
    assert headers["WWW-Authenticate"] == (
        f'Bearer resource_metadata="{METADATA}", error="invalid_token"'
    )


def test_the_resource_metadata_is_served_publicly(aws_env):
    made = gateway.proxy_event(
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource/mcp",
        headers={"Host": "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com"},
        stage="v1",
    )
    made["stageVariables"] = {"api": "analytics"}
    status, _, body = invoke(made)
    assert status == 200, body
    assert body["resource"] == f"{BASE}/mcp"
    assert body["bearer_methods_supported"] == ["header"]
    assert "authorization_servers" not in body  # none yet: docs/mcp.md


def test_a_read_key_lists_read_tools_and_a_write_is_refused_as_the_api_refuses_it(website):
    account = website["account"]
    read = key_of(account, scopes.Scope(access="read"))
    listed = rpc("tools/list", {}, read)["result"]["tools"]
    assert {t["name"] for t in listed} == READ_TOOLS
    assert all(t["annotations"]["readOnlyHint"] for t in listed)
    made = tool("create_annotation", {"website_id": 1, "date": "2026-11-02", "text": "x"}, read)
    assert refusal(made) == {"message": "Forbidden.", "status": 403}
    assert tool("list_annotations", {"website_id": 1})["structuredContent"]["data"] == []


def test_a_key_limited_to_other_websites_finds_none_of_this_one(website):
    account = website["account"]
    limited = key_of(account, scopes.Scope(websites=frozenset({99})))
    for name in ("list_goals", "realtime_visitors", "list_annotations"):
        found = refusal(tool(name, {"website_id": 1}, limited))
        assert found == {"message": "Resource not found.", "status": 404}, name
    listed = tool("list_websites", {}, limited)["structuredContent"]
    assert listed["data"] == []


def test_the_tools_answer_as_the_api_does(website):
    made = tool("create_annotation", {"website_id": 1, "date": "2026-11-02", "text": "Launch"})
    assert made["isError"] is False
    assert made["structuredContent"]["status"] == 201
    assert json.loads(made["content"][0]["text"]) == made["structuredContent"]
    listed = tool("list_websites", {"per_page": 10})["structuredContent"]
    assert [w["domain"] for w in listed["data"]] == ["example.com"]
    assert listed["meta"]["path"] == f"{BASE}/api/v1/websites"
    assert listed["meta"]["next_cursor"] is None
    assert tool("list_goals", {"website_id": 1})["structuredContent"] == {"data": [], "status": 200}


def test_bad_input_is_the_apis_422_and_unknown_things_its_404(website):
    invalid = refusal(tool("create_annotation", {"website_id": 1, "date": "soon"}))
    assert invalid["status"] == 422
    assert set(invalid["message"]) == {"date", "text"}
    assert refusal(tool("list_websites", {"per_page": 7}))["message"] == {
        "per_page": ["The per page field must be one of: 10, 25, 50, 100."]
    }
    assert refusal(tool("get_report", {"report_id": 5}))["status"] == 404
    assert refusal(tool("no_such_tool", {}))["status"] == 404
    query = refusal(tool("query_stats", {"site_id": 1, "metrics": ["nope"], "date_range": "7d"}))
    assert query["status"] == 422


def test_a_body_that_is_no_json_rpc_is_a_4xx(account):
    status, _, body = post(None, raw=b"{not json")
    assert status == 400
    assert body["error"]["code"] == -32700  # JSON-RPC's parse error
    status, _, body = post(None, raw=b" " * (64 * 1024 + 1))
    assert (status, body) == (413, errors.PayloadTooLarge().body())


def test_a_body_that_is_not_json_is_415(account):
    made = gateway.proxy_event(
        "POST",
        "/mcp",
        "/mcp",
        headers={"Authorization": f"Bearer {KEY}", "Content-Type": "text/plain"},
        body=b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
    )
    status, _, body = invoke(made)
    assert (status, body) == (415, errors.UnsupportedMediaType().body())


def test_resources_and_prompts(website):
    templates = rpc("resources/templates/list", {})["result"]["resourceTemplates"]
    assert {t["uriTemplate"] for t in templates} == {
        "sitelens://websites/{website_id}/dashboard",
        "sitelens://audits/{audit_id}/latest-run",
    }
    read = rpc("resources/read", {"uri": "sitelens://websites/1/dashboard"})["result"]
    dashboard = json.loads(read["contents"][0]["text"])
    assert dashboard["website"]["domain"] == "example.com"
    assert dashboard["totals"]["visitors"]["value"] == 0
    status, _, body = post(
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "resources/read",
            "params": {"uri": "sitelens://audits/4/latest-run"},
        }
    )
    assert status == 200  # a JSON-RPC error, the API's body its message
    assert json.loads(body["error"]["message"]) == {"message": "Resource not found.", "status": 404}
    prompts = rpc("prompts/list", {})["result"]["prompts"]
    assert {p["name"] for p in prompts} == {"weekly_traffic_review", "what_broke_since_last_audit"}
    got = rpc("prompts/get", {"name": "weekly_traffic_review", "arguments": {"website_id": "1"}})
    assert "query_stats with site_id 1" in got["result"]["messages"][0]["content"]["text"]


def test_a_tool_that_fails_answers_server_error_and_is_counted(website, monkeypatch):
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(websites, "list_page", broken)
    counted: list[tuple[str, dict[str, str]]] = []
    monkeypatch.setattr(metrics, "count", lambda name, *a, **d: counted.append((name, d)))
    assert refusal(tool("list_websites", {})) == {"message": "Server error.", "status": 500}
    assert counted == [("McpToolFaults", {"tool": "list_websites"})]


def test_audit_diff_pages_its_rows_with_signed_cursors(account, monkeypatch):
    rows = [{"url": f"https://example.com/{n:03d}", "change": "added"} for n in range(120)]
    asked = []

    def between(account_id: str, audit_id: int, run: int, against: int | None) -> Any:
        asked.append((audit_id, run, against))
        return iter(rows)

    monkeypatch.setattr(changes, "between", between)
    first = tool("audit_diff", {"audit_id": 3, "run": 2})["structuredContent"]
    assert [r["url"] for r in first["data"]] == [r["url"] for r in rows[:50]]
    assert first["meta"]["per_page"] == 50
    cursor = first["meta"]["next_cursor"]
    second = tool("audit_diff", {"audit_id": 3, "run": 2, "cursor": cursor})["structuredContent"]
    assert [r["url"] for r in second["data"]] == [r["url"] for r in rows[50:100]]
    assert asked == [(3, 2, None), (3, 2, None)]
    # a cursor is bound to its audit and run: another's is refused as the API refuses one
    other = refusal(tool("audit_diff", {"audit_id": 4, "run": 2, "cursor": cursor}))
    assert other == {"message": {"cursor": ["The cursor is invalid."]}, "status": 422}
