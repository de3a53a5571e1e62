"""The client's models against openapi/*.yaml: every property a schema lists is a field of its
model with a compatible type, and every field is a property, so the two cannot drift."""

from __future__ import annotations

import functools
import subprocess
import sys
import types
import typing
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel

from sitelens_client.models import analytics, seo

ROOT = Path(__file__).resolve().parents[3]
MODULES = {"analytics": analytics, "seo": seo}
KINDS = {int: "integer", float: "number", str: "string", bool: "boolean", type(None): "null"}


@functools.cache
def document(name: str) -> dict[str, Any]:
    return yaml.load((ROOT / "openapi" / f"{name}.yaml").read_text(), Loader=yaml.CSafeLoader)


def resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        node: Any = doc
        for part in schema["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        schema = node
    if len(schema.get("allOf", [])) == 1:
        return resolve(doc, schema["allOf"][0])
    return schema


def schema_kinds(doc: dict[str, Any], schema: dict[str, Any]) -> set[str]:
    """The JSON types a schema allows ("any" when it says none)."""
    schema = resolve(doc, schema)
    if "allOf" in schema:
        return {"object"}
    members = schema.get("oneOf") or schema.get("anyOf")
    if members and not ("type" in schema and all("type" not in m for m in members)):
        return set().union(*(schema_kinds(doc, m) for m in members))
    kind = schema.get("type")
    if kind is None and "const" in schema:
        kind = KINDS[type(schema["const"])]
    if kind is None and "enum" in schema:
        kind = [KINDS[type(v)] for v in schema["enum"]]
    if kind is None:
        return {"object"} if "properties" in schema else {"any"}
    return set(kind) if isinstance(kind, list) else {kind}


def annotation_kinds(annotation: Any) -> set[str]:
    if annotation is Any:
        return {"any"}
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return set().union(*(annotation_kinds(a) for a in typing.get_args(annotation)))
    origin = typing.get_origin(annotation) or annotation
    if origin is list:
        return {"array"}
    if origin is dict or (isinstance(origin, type) and issubclass(origin, BaseModel)):
        return {"object"}
    return {KINDS[origin]}


def check_model(
    doc: dict[str, Any], schema: dict[str, Any], model: type[BaseModel], at: str
) -> None:
    schema = resolve(doc, schema)
    properties = dict(schema.get("properties", {}))
    required = set(schema.get("required", []))
    for member in schema.get("allOf", []):
        properties.update(resolve(doc, member).get("properties", {}))
        required |= set(resolve(doc, member).get("required", []))
    fields = {(f.alias or name): f for name, f in model.model_fields.items()}
    assert set(fields) == set(properties), f"{at}: fields differ from the document's properties"
    for name, prop in properties.items():
        field = fields[name]
        expected = schema_kinds(doc, prop) | ({"null"} if name not in required else set())
        actual = annotation_kinds(field.annotation)
        if "any" not in actual and "any" not in expected:
            # an integer is a number; the model's float takes the document's integer too
            assert expected <= actual | ({"integer"} if "number" in actual else set()), (
                f"{at}.{name}: the document allows {expected}, the model {actual}"
            )
            assert actual <= expected | {"number"} if "integer" in expected else True, (
                f"{at}.{name}: the model allows {actual}, the document {expected}"
            )
        assert field.is_required() == (name in required), f"{at}.{name}: required differs"
        for inner, inner_schema in nested(doc, prop, field.annotation):
            check_model(doc, inner_schema, inner, f"{at}.{name}")


def nested(doc: dict[str, Any], schema: dict[str, Any], annotation: Any):
    """The (model, schema) pairs inside a property: an object's model, an array's items'."""
    schema = resolve(doc, schema)
    args = (
        typing.get_args(annotation)
        if typing.get_origin(annotation) in (types.UnionType, typing.Union)
        else (annotation,)
    )
    for arg in args:
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            candidates = [
                schema,
                *(resolve(doc, m) for m in schema.get("oneOf", []) + schema.get("anyOf", [])),
            ]
            for candidate in candidates:
                if candidate.get("properties") or "allOf" in candidate:
                    yield arg, candidate
                    break
        elif typing.get_origin(arg) is list and schema.get("items"):
            yield from nested(doc, schema["items"], typing.get_args(arg)[0])


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_schema_has_its_model_with_the_same_fields(name: str) -> None:
    doc = document(name)
    module = MODULES[name]
    for schema_name, schema in doc["components"]["schemas"].items():
        target = getattr(module, schema_name, None)
        assert target is not None, f"{name}: no model for {schema_name}"
        if isinstance(target, type) and issubclass(target, BaseModel):
            check_model(doc, schema, target, f"{name}.{schema_name}")
        else:
            assert "object" not in schema_kinds(doc, schema) or not schema.get("properties")


def test_the_check_fails_on_drift() -> None:
    """A property the document adds, or a field the model loses, fails the check."""
    doc = document("analytics")
    schema = doc["components"]["schemas"]["Website"]
    added = {**schema, "properties": {**schema["properties"], "owner": {"type": "string"}}}
    with pytest.raises(AssertionError, match="fields differ"):
        check_model(doc, added, analytics.Website, "Website")
    retyped = {**schema, "properties": {**schema["properties"], "domain": {"type": "integer"}}}
    with pytest.raises(AssertionError, match="domain"):
        check_model(doc, retyped, analytics.Website, "Website")


@pytest.mark.parametrize("script", ["generate_models.py", "make_async.py"])
def test_the_generated_files_are_current(script: str) -> None:
    """models/*.py are what generate_models.py writes from the documents now, async_client.py
    what make_async.py writes from client.py (after a change: `make client-models`)."""
    scripts = ROOT / "clients/python/scripts"
    done = subprocess.run(
        [sys.executable, scripts / script, "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
