"""A tool's output schema: its route's JSON answer as the OpenAPI document describes it (the
contract the API's answers are tested against), standing alone as JSON Schema, the document's
schemas it names under `$defs`."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from sitelens.edge import docs
from sitelens.edge.mcp_server.calls import Route

COMPONENTS = "#/components/schemas/"
DEFS = "#/$defs/"
ANSWERS = ("200", "201", "202")  # a tool answers as its route does when it succeeds


@cache
def _document(api: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(docs.document(api).body)
    return found


def output_schema(route: Route) -> dict[str, Any] | None:
    """The route's documented JSON answer, or None where the route answers no JSON (a
    change list is CSV) or no document has the route."""
    for api in docs.APIS:
        document = _document(api)
        operation = document["paths"].get(route.path, {}).get(route.method.lower())
        if operation is None:
            continue
        for status in ANSWERS:
            answer = operation["responses"].get(status) or {}
            media = (answer.get("content") or {}).get("application/json")
            if media is not None:
                return _standing_alone(document, media["schema"])
        return None
    return None


def _standing_alone(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    schemas = document["components"]["schemas"]
    named: dict[str, Any] = {}
    waiting = _names(schema)
    while waiting:
        name = waiting.pop()
        if name not in named:
            named[name] = _rewritten(schemas[name])
            waiting |= _names(schemas[name])
    root = _rewritten(schema)
    if root.get("type") != "object":  # MCP asks for an object at the root: one named, say
        root = {"type": "object", "allOf": [root]}
    return {**root, "$defs": named} if named else root


def _names(node: Any) -> set[str]:
    text = json.dumps(node)
    found = set()
    for part in text.split(f'"{COMPONENTS}')[1:]:
        found.add(part.split('"', 1)[0].split("/", 1)[0])  # `X/properties/y` is in X
    return found


def _rewritten(node: Any) -> Any:
    result: Any = json.loads(json.dumps(node).replace(f'"{COMPONENTS}', f'"{DEFS}'))
    return result
