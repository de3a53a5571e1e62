"""A page's structured data (JSON-LD, Microdata and RDFa, read by extruct), checked against
the schema.org vocabulary and Google's rich-result rules (`rich_results`).

`validate(html, url)` gives the page's top-level items' types and its findings, each an
error or a warning naming the type and the property:

- **errors**: a JSON-LD block that is not JSON; a type schema.org does not define; a
  property it does not define, or does not define on the item's type (nor on an ancestor:
  `domainIncludes`); a property Google requires for the type's rich result;
- **warnings**: a property Google recommends for it.

Only items in schema.org's vocabulary are checked (another vocabulary's, Open Graph's
RDFa, are not ours to judge). The vocabulary is schema.org's current release, trimmed by
scripts/make_schema_vocabulary.py into `schema_vocabulary.json`. The work is bounded:
pages without a hint of markup (`has_markup`) are not parsed again, and at most
`MAX_ITEMS` items, `MAX_DEPTH` levels deep, and `MAX_FINDINGS` findings are kept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

from sitelens.seo.rich_results import RULES, Rule, missing

MAX_ITEMS = 50  # items of a page checked
MAX_DEPTH = 8  # levels of nested items checked
MAX_FINDINGS = 20  # findings of each severity kept a page
_SCHEMA_PREFIXES = ("https://schema.org/", "http://schema.org/", "schema:")
# selectors of markup worth parsing: JSON-LD, Microdata items, RDFa typed resources
HINTS = 'script[type="application/ld+json"], [itemscope], [typeof]'

Item = dict[str, Any]


@dataclass(frozen=True)
class Finding:
    """One problem of a page's structured data: how bad, which type and property, and the
    sentence a reader sees."""

    severity: Literal["error", "warning"]
    type: str
    property: str
    message: str


@dataclass(frozen=True)
class Validation:
    """A page's checked structured data: its top-level types, in page order, and findings."""

    types: list[str]
    errors: list[Finding]
    warnings: list[Finding]


@cache
def vocabulary() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """schema.org's types (-> direct parents) and properties (-> the types declaring them)."""
    text = resources.files("sitelens.seo").joinpath("schema_vocabulary.json").read_text()
    found = json.loads(text)
    return found["types"], found["properties"]


@cache
def ancestors(name: str) -> frozenset[str]:
    """The type and every type it descends from (empty for a type schema.org lacks)."""
    types, _ = vocabulary()
    if name not in types:
        return frozenset()
    found, todo = {name}, [name]
    while todo:
        for parent in types.get(todo.pop(), []):
            if parent not in found:
                found.add(parent)
                todo.append(parent)
    return frozenset(found)


def _term(value: Any) -> str | None:
    """A schema.org term's name (`Product` of `https://schema.org/Product`); None for a
    term of another vocabulary."""
    if not isinstance(value, str):
        return None
    for prefix in _SCHEMA_PREFIXES:
        if value.startswith(prefix):
            return value[len(prefix) :]
    return None if ":" in value or "/" in value else value


def _types(item: Item) -> list[str]:
    given = item.get("@type")
    return [str(t) for t in (given if isinstance(given, list) else [given]) if t]


def _in_schema(item: Item) -> bool:
    """Whether a top-level item speaks schema.org (its context, or its types' IRIs)."""
    context = json.dumps(item.get("@context", ""))
    return "schema.org" in context or any(t.startswith(_SCHEMA_PREFIXES[:2]) for t in _types(item))


def has_markup(tree: Any) -> bool:
    """Whether a parsed page (selectolax) has markup worth extracting."""
    return tree.css_first(HINTS) is not None


def extract(html: str, url: str) -> tuple[list[Item], list[Finding]]:
    """The page's top-level schema.org items (JSON-LD, then Microdata, then RDFa; RDFa as
    compact items) and a finding for each JSON-LD block that is not JSON."""
    import extruct
    from extruct.jsonld import JsonLdExtractor
    from extruct.utils import parse_html

    items: list[Item] = []
    broken: list[Finding] = []
    tree = parse_html(html, encoding="UTF-8")
    extractor = JsonLdExtractor()
    for n, node in enumerate(tree.xpath('//script[@type="application/ld+json"]'), 1):
        try:
            found = extractor.extract_items(node, base_url=url)
        except ValueError as err:
            why = str(err).split(":")[0]
            message = f"JSON-LD block {n} is not valid JSON ({why})."
            broken.append(Finding("error", "JSON-LD", "", message))
            continue
        for item in found:
            if isinstance(item, dict) and isinstance(item.get("@graph"), list):
                context = item.get("@context")
                items += [{"@context": context, **g} for g in item["@graph"] if isinstance(g, dict)]
            elif isinstance(item, dict):
                items.append(item)
    other = extruct.extract(
        html, base_url=url, syntaxes=["microdata", "rdfa"], uniform=True, errors="ignore"
    )
    items += [i for i in other.get("microdata") or [] if isinstance(i, dict)]
    items += _rdfa_items(other.get("rdfa") or [])
    return [i for i in items if _in_schema(i)][:MAX_ITEMS], broken


def _rdfa_items(nodes: list[Item]) -> list[Item]:
    """RDFa's expanded nodes as compact items (`{"@type": ..., "name": ...}`), nested by
    reference, the nodes no other node refers to at the top."""
    by_id = {node.get("@id"): node for node in nodes if isinstance(node, dict)}
    referred = {
        value["@id"]
        for node in by_id.values()
        for key, values in node.items()
        if not key.startswith("@") and isinstance(values, list)
        for value in values
        if isinstance(value, dict) and "@id" in value
    }

    def compact(node: Item, depth: int) -> Item:
        item: Item = {"@context": "https://schema.org", "@type": node.get("@type") or []}
        for key, values in node.items():
            name = _term(key)
            if key.startswith("@") or name is None or not isinstance(values, list):
                continue
            kept: list[Any] = []
            for value in values:
                target = by_id.get(value.get("@id")) if isinstance(value, dict) else None
                if target is not None and target.get("@type") and depth < MAX_DEPTH:
                    kept.append(compact(target, depth + 1))
                elif isinstance(value, dict):
                    kept.append(value.get("@value", value.get("@id")))
            item[name] = kept[0] if len(kept) == 1 else kept
        return item

    return [
        compact(node, 0)
        for key, node in by_id.items()
        if key not in referred and any(_term(t) for t in node.get("@type") or [])
    ]


def validate(html: str, url: str) -> Validation:
    """The page's structured data checked (see the module's docstring)."""
    items, broken = extract(html, url)
    findings: list[Finding] = list(broken)
    types: list[str] = []
    for item in items:
        names = [name for t in _types(item) if (name := _term(t))]
        types += names
        _check(item, names, 0, findings)
        rule = _rule(names)
        if rule is not None:
            _apply(rule, item, names[0] if names else "Thing", findings)
    unique = list(dict.fromkeys(findings))
    return Validation(
        list(dict.fromkeys(types)),
        [f for f in unique if f.severity == "error"][:MAX_FINDINGS],
        [f for f in unique if f.severity == "warning"][:MAX_FINDINGS],
    )


def _rule(names: list[str]) -> Rule | None:
    """The rule of the nearest of the types' ancestors that has one."""
    types, _ = vocabulary()
    for name in names:
        level, seen = [name], set()
        while level:
            for candidate in level:
                if candidate in RULES:
                    return RULES[candidate]
            seen.update(level)
            level = [p for t in level for p in types.get(t, []) if p not in seen]
    return None


def _check(item: Item, names: list[str], depth: int, findings: list[Finding]) -> None:
    """Every type and property of the item (and of its nested items) in the vocabulary."""
    _, properties = vocabulary()
    known = frozenset().union(*(ancestors(name) for name in names)) if names else frozenset()
    label = names[0] if names else "Thing"
    for name in names:
        if not ancestors(name):
            findings.append(Finding("error", name, "", f"`{name}` is not a schema.org type."))
    for key, value in item.items():
        prop = _term(key)
        if key.startswith("@") or prop is None:
            continue
        if prop not in properties:
            message = f"{label} has property `{prop}`, which schema.org does not define."
            findings.append(Finding("error", label, prop, message))
        elif known and properties[prop] and not known & set(properties[prop]):
            message = f"`{prop}` is not a property of {label} in schema.org."
            findings.append(Finding("error", label, prop, message))
        for nested in value if isinstance(value, list) else [value]:
            if isinstance(nested, dict) and nested.get("@type") and depth < MAX_DEPTH:
                inner = [n for t in _types(nested) if (n := _term(t))]
                _check(nested, inner, depth + 1, findings)


def _present(item: Item, prop: str) -> bool:
    for key, value in item.items():
        if _term(key) == prop:
            return value not in (None, "", [], {})
    return False


def _apply(rule: Rule, item: Item, label: str, findings: list[Finding]) -> None:
    """Google's required (errors) and recommended (warnings) properties of a rule."""
    for alternatives in rule.required:
        if not any(_present(item, prop) for prop in alternatives):
            message = f"{label} is missing required property {missing(alternatives)}."
            findings.append(Finding("error", label, alternatives[0], message))
    for prop in rule.recommended:
        if not _present(item, prop):
            message = f"{label} is missing recommended property `{prop}`."
            findings.append(Finding("warning", label, prop, message))
    for prop, inner_rule in rule.nested.items():
        values = next((v for k, v in item.items() if _term(k) == prop), None)
        for nested in values if isinstance(values, list) else [values]:
            if isinstance(nested, dict):
                inner = next((n for t in _types(nested) if (n := _term(t))), prop)
                _apply(inner_rule, nested, inner, findings)
