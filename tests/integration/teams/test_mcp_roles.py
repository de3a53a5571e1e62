"""The MCP server holds a member's key to its role as the API does: each tool to the role
of the route it stands for (`roles.ROUTES`), in what `tools/list` shows and in what a call
may do, whatever the key's scope."""

from __future__ import annotations

from tests.integration.test_mcp import READ_TOOLS, refusal, rpc, tool


def test_a_viewer_sees_the_reading_tools_and_a_write_is_refused(analytics, join):
    site = analytics.post("/api/v1/websites", {"domain": "viewer-mcp.example"}).data["id"]
    _, viewer = join("viewer@example.com", "viewer")  # a write key, of a viewer
    listed = {t["name"] for t in rpc("tools/list", {}, viewer)["result"]["tools"]}
    assert listed == READ_TOOLS
    made = tool(
        "create_annotation", {"website_id": site, "date": "2026-11-02", "text": "x"}, viewer
    )
    assert refusal(made) == {"message": "Forbidden.", "status": 403}
    assert analytics.get(f"/api/v1/websites/{site}/annotations").data == []
    _, editor = join("editor@example.com", "editor")
    assert {t["name"] for t in rpc("tools/list", {}, editor)["result"]["tools"]} > READ_TOOLS
    done = tool(
        "create_annotation", {"website_id": site, "date": "2026-11-02", "text": "x"}, editor
    )
    assert done.get("isError") is not True, done
    assert [a["text"] for a in analytics.get(f"/api/v1/websites/{site}/annotations").data] == ["x"]
