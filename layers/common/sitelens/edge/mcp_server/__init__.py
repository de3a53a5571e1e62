"""The MCP server at `/mcp` on both bases (docs/mcp.md): the API's operations as tools for AI
assistants, over the official `mcp` SDK's stateless Streamable HTTP (JSON answers).

Each tool stands for one API route: the key's scope is checked as the route's would be
(`edge.auth.permit`), its input is the route's pydantic model, and it calls the layer
function the route's handler calls. Rules stay in the domain areas; this package only maps.
"""

from sitelens.edge.mcp_server.transport import answer, challenged

__all__ = ["answer", "challenged"]
