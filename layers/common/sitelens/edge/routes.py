"""Which methods each route path answers: the `Allow` of a 405.

`routes.json` is generated from template.yaml by `make routes` (`sitelens.local.routes`; a
test fails when it is stale), so the deployed fallback needs no YAML and the template stays
the only list.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

PACKAGED = Path(__file__).with_name("routes.json")


@cache
def _packaged() -> dict[str, list[str]]:
    loaded: dict[str, list[str]] = json.loads(PACKAGED.read_text())
    return loaded


def allowed_methods(path: str) -> list[str]:
    """The methods of a route path; empty for unknown paths."""
    return _packaged().get(path, [])
