"""`make openapi`: write the server's own lists and patterns into the repository's
`openapi/<api>.yaml` (the documents written and reviewed by hand), then regenerate the
layer's `edge/openapi/<api>.json` from them.

A generated value follows a comment `# make openapi writes this: <name>` and is the one
YAML key under it (its continuation lines indented deeper): the time zones, the ISO 4217
currencies and the host patterns the server checks by, so the contract cannot drift from
the server (tests/unit/test_contract_rules.py fails when a document is stale). The time
zones are a pattern that matches exactly their names, not an enum: schemathesis' coverage
phase sends every value of an enum, 600 requests a field.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from sitelens.core import currencies, hosts, timezones
from sitelens.local.template import DEFAULT_PATH
from sitelens.webhooks import contract, registry

SOURCES = DEFAULT_PATH.parent / "openapi"
PACKAGED = Path(__file__).resolve().parents[1] / "edge" / "openapi"
APIS = ("analytics", "seo")
WIDTH = 100  # the documents' line length

# name -> (key, value): an enum's values or a pattern, from the rule the server applies
GENERATED: dict[str, tuple[str, Callable[[], list[str] | str | dict[str, Any]]]] = {
    # "" is the default: UTC for a website, the website's for a query
    "time zones": ("pattern", lambda: f"^(?:{one_of(timezones.names())})?$"),
    "currencies": ("enum", lambda: sorted(currencies.codes())),
    "host": ("pattern", lambda: hosts.PATTERN),
    "hosts": ("pattern", lambda: hosts.LIST_PATTERN),
    # the webhook events an endpoint may subscribe to, and the documents' `webhooks`
    "webhook events": ("enum", lambda: list(registry.SUBSCRIBABLE)),
    "webhook events text": ("pattern", lambda: _comma_separated(registry.SUBSCRIBABLE)),
    "webhooks": ("webhooks", contract.openapi_webhooks),
}
DOCS_WITH_EVENTS = DEFAULT_PATH.parent / "docs" / "keys-and-webhooks.md"
_DOCS_TABLE = re.compile(
    r"(<!-- make openapi writes this: webhook events -->\n).*?"
    r"(<!-- end of what make openapi writes -->)",
    re.DOTALL,
)


def _comma_separated(names: Iterable[str]) -> str:
    one = "|".join(re.escape(name) for name in names)
    return f"^({one})(,({one}))*$"


def refreshed_docs(text: str) -> str:
    """The docs' text with the table of webhook events written from the registry."""
    return _DOCS_TABLE.sub(lambda found: found[1] + contract.docs_table() + found[2], text)


_MARKED = re.compile(
    r"^(?P<indent> *)# make openapi writes this: (?P<name>[^\n]+)\n"
    r"(?P=indent)[\w-]+:[^\n]*\n(?:(?P=indent) +[^\n]*\n)*",
    re.MULTILINE,
)


_SYNTAX = set("\\^$.|?*+()[]{}")  # escaped in a pattern


def one_of(words: Iterable[str]) -> str:
    """A regular expression (ECMA-262 and Python alike) matching exactly `words`, as a trie
    of alternations: `Africa/(?:Abidjan|Accra)`, shared prefixes written once."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def expression(node: dict[str, Any]) -> str:
        branches = []
        for char, child in sorted(node.items()):
            if char:
                branches.append(("\\" if char in _SYNTAX else "") + char + expression(child))
        if not branches:
            return ""
        optional = "?" if "" in node else ""
        if len(branches) == 1 and not optional:
            return branches[0]
        return f"(?:{'|'.join(branches)}){optional}"

    return expression(trie)


def _render(indent: str, key: str, value: list[str] | str | dict[str, Any]) -> str:
    if isinstance(value, dict):
        import yaml

        block = yaml.safe_dump(
            {key: value}, sort_keys=False, width=WIDTH - len(indent), allow_unicode=True
        )
        return "".join(f"{indent}{line}\n" for line in block.splitlines())
    if isinstance(value, str):
        return f"{indent}{key}: {json.dumps(value)}\n"
    items = ", ".join(json.dumps(item) for item in value)
    lines = textwrap.wrap(
        f"[{items}]", WIDTH - len(indent) - 2, break_long_words=False, break_on_hyphens=False
    )
    return f"{indent}{key}:\n" + "".join(f"{indent}  {line}\n" for line in lines)


def refreshed(text: str) -> str:
    """The YAML `text` with each generated value written from its rule."""

    def write(found: re.Match[str]) -> str:
        indent, name = found["indent"], found["name"].strip()
        key, make = GENERATED[name]
        return f"{indent}# make openapi writes this: {name}\n" + _render(indent, key, make())

    return _MARKED.sub(write, text)


def document(api: str) -> dict[str, Any]:
    """The YAML document of `api` as plain data, read by libyaml where PyYAML has it (a
    quarter of a second less per document than PyYAML's own parser)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    parsed: dict[str, Any] = yaml.load((SOURCES / f"{api}.yaml").read_text(), Loader=loader)  # noqa: S506 - a safe loader
    return parsed


def as_json(api: str) -> str:
    """The YAML document of `api` as compact JSON (anchors expanded)."""
    return json.dumps(document(api), separators=(",", ":"), ensure_ascii=False) + "\n"


if __name__ == "__main__":
    PACKAGED.mkdir(exist_ok=True)
    for api in APIS:
        source = SOURCES / f"{api}.yaml"
        text = source.read_text()
        if refreshed(text) != text:
            source.write_text(refreshed(text))
        (PACKAGED / f"{api}.json").write_text(as_json(api))
    docs = DOCS_WITH_EVENTS.read_text()
    if refreshed_docs(docs) != docs:
        DOCS_WITH_EVENTS.write_text(refreshed_docs(docs))
