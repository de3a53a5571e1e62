"""The registry (`registry.EVENTS`) as the contract shows it: the OpenAPI documents'
`webhooks` section and the docs' table of events, both written by `make openapi`
(`sitelens.local.openapi`) and checked against the registry by a test."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from sitelens.webhooks import registry


def _inlined(schema: Any, defs: dict[str, Any]) -> Any:
    """`schema` with its `$ref`s to `$defs` replaced by what they name, titles dropped."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            return _inlined(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
        return {
            k: " ".join(v.split()) if k == "description" else _inlined(v, defs)
            for k, v in schema.items()
            if k not in ("title", "$defs")
        }
    if isinstance(schema, list):
        return [_inlined(v, defs) for v in schema]
    return schema


def payload_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema of an event's `data`, self-contained."""
    schema = model.model_json_schema()
    inlined: dict[str, Any] = _inlined(schema, schema.get("$defs", {}))
    return inlined


def openapi_webhooks() -> dict[str, Any]:
    """OpenAPI 3.1's `webhooks`: one POST per event, its body the Standard Webhooks
    envelope around the event's `data`."""
    found: dict[str, Any] = {}
    for name, event in registry.EVENTS.items():
        reach = registry.REACH_SENTENCES[event.reach]
        found[name] = {
            "post": {
                "summary": name,
                "description": f"Sent when {event.when}; to endpoints that reach {reach}.",
                "operationId": "webhook_" + name.replace(".", "_"),
                "tags": ["Webhooks"],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["type", "timestamp", "data"],
                                "additionalProperties": False,
                                "properties": {
                                    "type": {"type": "string", "const": name},
                                    "timestamp": {"type": "string", "format": "date-time"},
                                    "data": payload_schema(event.payload),
                                },
                            }
                        }
                    },
                },
                "responses": {
                    "2XX": {
                        "description": "Received. Any other answer, or none within 10 s, "
                        "is tried again."
                    }
                },
            }
        }
    return found


def _fields(model: type[BaseModel]) -> str:
    doc = " ".join((model.__doc__ or "").split())
    if issubclass(model, registry.Shown):
        return doc
    names = ", ".join(f"`{field}`" for field in model.model_fields)
    return f"{doc} {names}".strip() if doc else names


def docs_table() -> str:
    """The docs' table of events (docs/keys-and-webhooks.md), one row an event."""
    rows = ["| Type | When | `data` | Sent to endpoints that reach |", "|---|---|---|---|"]
    for name, event in registry.EVENTS.items():
        reach = registry.REACH_SENTENCES[event.reach]
        rows.append(f"| `{name}` | {event.when} | {_fields(event.payload)} | {reach} |")
    return "\n".join(rows) + "\n"
