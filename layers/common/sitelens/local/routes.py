"""`make routes`: regenerate the layer's `edge/routes.json` (the 405 Allow lists) from
template.yaml, which stays the only list of routes."""

from __future__ import annotations

import json

from sitelens.edge.routes import PACKAGED
from sitelens.local import template


def from_template() -> dict[str, list[str]]:
    """Methods by route path, read from template.yaml (PATCH wherever PUT is routed)."""
    table: dict[str, set[str]] = {}
    for route in template.routes(template.load()):
        if route.method != "ANY":
            table.setdefault(route.path, set()).add(route.method)
    return {path: sorted(methods) for path, methods in sorted(table.items())}


if __name__ == "__main__":
    PACKAGED.write_text(json.dumps(from_template(), indent=2) + "\n")
