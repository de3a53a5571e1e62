"""Writes sitelens_client/models/{analytics,seo}.py from the repository's openapi/*.yaml.

Run from the repository's root: `make client-models` (it needs PyYAML, a dev dependency of the
repository, not of the client). Every schema of `components.schemas` becomes a pydantic model
(objects) or a type alias (anything else); inline objects become nested models named after
their parent and property. Enums and constants are typed by their base type, so a value the
API adds later does not break an installed client.
"""

from __future__ import annotations

import keyword
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import yaml
from ruffed import formatted

ROOT = Path(__file__).resolve().parents[3]
MODELS = ROOT / "clients/python/src/sitelens_client/models"
DOCUMENTS = ("analytics", "seo")
BASIC = {"integer": "int", "number": "float", "string": "str", "boolean": "bool", "null": "None"}
# pydantic's own attributes: a property of that name gets a trailing underscore and an alias
RESERVED = {"copy", "dict", "json", "schema", "fields", "validate", "construct", "model_config"}


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", name) if part)


def python_name(name: str) -> str:
    clean = re.sub(r"\W", "_", name.replace("$", "dollar"))
    if clean[:1].isdigit():
        return "n" + clean
    if keyword.iskeyword(clean) or clean in RESERVED or clean.startswith(("_", "model_")):
        return clean.lstrip("_") + "_"
    return clean


class Writer:
    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.schemas: dict[str, Any] = document["components"]["schemas"]
        self.classes: dict[str, str] = {}  # name -> source, in the order written
        self.aliases: dict[str, str] = {}

    def resolve(self, ref: str) -> Any:
        node: Any = self.document
        for part in ref.removeprefix("#/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def annotation(self, schema: Any, name: str) -> str:
        """The Python type of a schema; `name` names the models it defines inline."""
        if not isinstance(schema, dict):
            return "Any"
        if "$ref" in schema:
            ref = schema["$ref"]
            parts = ref.split("/")
            if len(parts) == 4 and parts[2] == "schemas":
                return parts[3]
            return self.annotation(self.resolve(ref), name)
        if "allOf" in schema:
            members = [self.resolve(m["$ref"]) if "$ref" in m else m for m in schema["allOf"]]
            if len(schema["allOf"]) == 1:
                return self.annotation(schema["allOf"][0], name)
            merged: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
            for member in members:
                merged["properties"].update(member.get("properties", {}))
                merged["required"] += member.get("required", [])
            return self.annotation(merged, name)
        for combinator in ("oneOf", "anyOf"):
            members = schema.get(combinator)
            if members and not ("type" in schema and all("type" not in m for m in members)):
                return union(
                    self.annotation(m, f"{name}{n if n else ''}") for n, m in enumerate(members)
                )
        kind = schema.get("type")
        if kind is None:
            if "const" in schema:
                kind = json_kind(schema["const"])
            elif "enum" in schema:
                kind = sorted({json_kind(v) for v in schema["enum"]})
            elif "properties" in schema:
                kind = "object"
        if isinstance(kind, list):
            return union(self.annotation({**schema, "type": k}, name) for k in kind)
        if kind in BASIC:
            return BASIC[kind]
        if kind == "array":
            items = schema.get("items")
            return f"list[{self.annotation(items, name + 'Item') if items else 'Any'}]"
        if kind == "object":
            if schema.get("properties"):
                self.model(name, schema)
                return name
            extra = schema.get("additionalProperties")
            value = self.annotation(extra, name + "Value") if isinstance(extra, dict) else "Any"
            return f"dict[str, {value}]"
        return "Any"

    def model(self, name: str, schema: dict[str, Any]) -> None:
        if name in self.classes:
            return
        self.classes[name] = ""  # reserved first: a model may refer to itself
        required = set(schema.get("required", []))
        lines = [f"class {name}(SitelensModel):"]
        doc = (schema.get("description") or "").strip().split("\n")[0]
        if doc:
            lines.append(f"    {docstring(doc)}")
        for prop, sub in schema["properties"].items():
            attr = python_name(prop)
            kind = self.annotation(sub, name + camel(python_name(prop)))
            if prop not in required and "None" not in kind.split(" | "):
                kind = f"{kind} | None"
            alias = f'alias="{prop}"' if attr != prop else ""
            if prop in required:
                value = f" = Field({alias})" if alias else ""
            else:
                value = f" = Field(None, {alias})" if alias else " = None"
            lines.append(f"    {attr}: {kind}{value}")
        self.classes[name] = "\n".join(lines)

    def write(self, module: str) -> str:
        for name, schema in self.schemas.items():
            kind = self.annotation(schema, name)
            if kind != name:
                self.aliases[name] = kind
        body = [self.classes[n] for n in self.classes]
        body += [f"{name}: TypeAlias = {kind}" for name, kind in self.aliases.items()]
        rebuild = [f"{n}.model_rebuild()" for n in self.classes]
        return "\n".join(
            [
                f'"""Models of openapi/{module}.yaml, written by'
                '\nclients/python/scripts/generate_models.py: not by hand."""',
                "",
                "from __future__ import annotations",
                "",
                "from typing import Any, TypeAlias",
                "",
                "from pydantic import Field",
                "",
                "from sitelens_client.models.base import SitelensModel",
                "",
                "",
                "\n\n\n".join(body),
                "",
                *rebuild,
                "",
            ]
        )


def json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if value is None:
        return "null"
    return "string"


def union(kinds: Any) -> str:
    seen: list[str] = []
    for kind in kinds:
        for part in kind.split(" | "):
            if part not in seen:
                seen.append(part)
    if "Any" in seen:
        return "Any"
    if "None" in seen:  # None last, as people write it
        seen = [*(k for k in seen if k != "None"), "None"]
    return " | ".join(seen)


def docstring(text: str) -> str:
    text = text.replace("\\", "\\\\").replace('"""', "'''").rstrip('"')
    lines = textwrap.wrap(text, width=90)
    if len(lines) == 1:
        return f'"""{text}"""'
    return '"""' + "\n    ".join(lines) + '\n    """'


def main() -> None:
    """Writes the models; with --check, exits non-zero if a written file is not current."""
    stale = []
    for module in DOCUMENTS:
        document = yaml.load(
            (ROOT / "openapi" / f"{module}.yaml").read_text(), Loader=yaml.CSafeLoader
        )
        target = MODELS / f"{module}.py"
        written = formatted(Writer(document).write(module), target)
        if "--check" not in sys.argv:
            target.write_text(written)
        elif target.read_text() != written:
            stale.append(target.name)
    if stale:
        sys.exit(f"not current: {', '.join(stale)} (make client-models)")


if __name__ == "__main__":
    main()
