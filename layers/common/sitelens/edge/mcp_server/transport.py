"""The MCP server over API Gateway: the SDK's low-level server with Sitelens' tools, resources
and prompts, served statelessly (a JSON answer per POST, no session) through mangum, within
the request's key; and the 401 that names the protected resource's metadata (RFC 9728)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from functools import cache
from typing import Any, cast

import mcp_types as types
from mangum import Mangum
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError

from sitelens.core import errors, metrics
from sitelens.core.log import logger
from sitelens.edge import docs
from sitelens.edge.http import JSON_TYPE, MAX_BODY_BYTES, Request, Response
from sitelens.edge.mcp_server import analytics_tools, contract, readings, seo_tools
from sitelens.edge.mcp_server.calls import Caller, caller, calling, refusal, visible

NAME = "sitelens"
TOOLS = {tool.name: tool for tool in (*analytics_tools.TOOLS, *seo_tools.TOOLS)}
RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for a resource that is not there


def answer(request: Request) -> Response:
    """The JSON-RPC answer to one MCP POST, its tools running under the key's account and
    scope (set by `api_handler`)."""
    if len(request.body) > MAX_BODY_BYTES:  # a message is small; the API's bound
        raise errors.PayloadTooLarge()
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != JSON_TYPE:
        raise errors.UnsupportedMediaType()
    who = Caller(request.account.id, request.grant, request.base_url)
    with calling(who):
        # A handler per call: mangum sets up this thread's event loop (make serve's
        # requests each have their own thread; Lambda's run one at a time)
        # (no Lambda context: the tools read none)
        result: dict[str, Any] = Mangum(_asgi, lifespan="off")(request.event, cast(Any, None))
    headers = {k.lower(): v for k, v in (result.get("headers") or {}).items()}
    for name, values in (result.get("multiValueHeaders") or {}).items():
        headers[name.lower()] = values[-1]
    headers.pop("content-length", None)  # the gateway counts the body it sends
    content_type = headers.pop("content-type", "application/json")
    return Response(result["statusCode"], result.get("body") or "", headers, content_type)


async def _asgi(scope: Any, receive: Any, send: Any) -> None:
    # Stateless: a manager of one request, whose task group ends with it.
    manager = StreamableHTTPSessionManager(app=_server(), json_response=True, stateless=True)
    async with manager.run():
        await manager.handle_request(scope, receive, send)


def challenged(handler: Callable[[dict[str, Any], Any], dict[str, Any]]) -> Any:
    """`handler`, whose 401 says where the resource's metadata is, as the MCP authorization
    specification asks: `WWW-Authenticate: Bearer resource_metadata="..."`."""

    @functools.wraps(handler)
    def challenging(event: dict[str, Any], context: Any) -> dict[str, Any]:
        response = handler(event, context)
        if response["statusCode"] == 401:
            request = Request.from_event(event)
            found = ', error="invalid_token"' if request.headers.get("authorization") else ""
            metadata = f"{request.base_url}{docs.MCP_METADATA_PATH}"
            challenge = f'Bearer resource_metadata="{metadata}"{found}'
            response["headers"]["WWW-Authenticate"] = challenge
        return response

    return challenging


@cache
def _server() -> Server[Any]:
    """The low-level server, made once a container: it holds no request's state."""
    return Server(
        NAME,
        version="1",
        title="Sitelens",
        instructions="Sitelens: website analytics (Plausible's query API) and SEO reports and "
        "site audits, for the account of the key you connected with.",
        on_list_tools=_list_tools,
        on_call_tool=_call_tool,
        on_list_resources=_list_resources,
        on_list_resource_templates=_list_resource_templates,
        on_read_resource=_read_resource,
        on_list_prompts=_list_prompts,
        on_get_prompt=_get_prompt,
        get_tool_input_schema=_input_schema,
    )


def _input_schema(name: str) -> dict[str, Any] | None:
    tool = TOOLS.get(name)
    return tool.inputs.model_json_schema() if tool else None


@cache
def _described(name: str) -> types.Tool:
    tool = TOOLS[name]
    hints = {
        "read_only_hint": tool.annotations.get("readOnlyHint", not tool.writes),
        "open_world_hint": tool.annotations.get("openWorldHint"),
        "destructive_hint": False if tool.writes else None,
    }
    return types.Tool(
        name=tool.name,
        title=tool.title or None,
        description=tool.description,
        input_schema=tool.inputs.model_json_schema(),
        output_schema=contract.output_schema(tool.route),
        annotations=types.ToolAnnotations(title=tool.title or None, **hints),
    )


async def _list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    shown = [_described(t.name) for t in TOOLS.values() if visible(t, caller().grant)]
    return types.ListToolsResult(tools=shown)


async def _call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    tool = TOOLS.get(params.name)
    try:
        if tool is None:
            raise errors.NotFound()
        # a tool the key does not see refuses it as its route does (Route.permit)
        body = tool.run(tool.inputs.parse(dict(params.arguments or {})))
    except errors.ApiError as err:
        return _failed(err)
    except Exception:
        logger.exception("Unhandled error", extra={"tool": params.name})
        metrics.count("McpToolFaults", tool=params.name if tool else "unknown")
        return _failed(errors.ApiError())
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False, default=str)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=json.loads(text)
    )


def _failed(err: errors.ApiError) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=refusal(err))], is_error=True
    )


async def _list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[])  # each is a template: of a record's id


async def _list_resource_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
    templates = [
        types.ResourceTemplate(
            name=reading.name,
            uri_template=reading.uri_template,
            description=reading.description,
            mime_type="application/json",
        )
        for reading in readings.READINGS
    ]
    return types.ListResourceTemplatesResult(resource_templates=templates)


async def _read_resource(
    ctx: Any, params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    uri = str(params.uri)
    try:
        found = readings.read(uri)
    except errors.ApiError as err:
        code = RESOURCE_NOT_FOUND if err.status == 404 else types.INVALID_PARAMS
        raise MCPError(code, refusal(err)) from None
    text = json.dumps(found, separators=(",", ":"), ensure_ascii=False, default=str)
    contents = types.TextResourceContents(uri=uri, mime_type="application/json", text=text)
    return types.ReadResourceResult(contents=[contents])


async def _list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    prompts = [
        types.Prompt(
            name=p.name,
            title=p.title,
            description=p.description,
            arguments=[
                types.PromptArgument(
                    name=p.argument, description=p.argument_description, required=True
                )
            ],
        )
        for p in readings.PROMPTS
    ]
    return types.ListPromptsResult(prompts=prompts)


async def _get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    try:
        found, text = readings.prompt(params.name, dict(params.arguments or {}))
    except errors.ApiError as err:
        raise MCPError(types.INVALID_PARAMS, refusal(err)) from None
    message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
    return types.GetPromptResult(description=found.description, messages=[message])
