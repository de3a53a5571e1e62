"""POST /mcp on both APIs: the MCP server (docs/mcp.md), one JSON-RPC message in, its answer
out, its tools within the key's scope; a 401 names the resource's metadata (RFC 9728)."""

from sitelens.core import snapshots
from sitelens.edge import mcp_server
from sitelens.edge.http import Request, Response, api_handler

# CostProfile=standard restores this function from a SnapStart snapshot (template.yaml)
snapshots.register()


@api_handler
def serve(request: Request) -> Response:
    return mcp_server.answer(request)


handler = mcp_server.challenged(serve)
