"""Matomo's labelled user agents (the `device_detector` package's test fixtures), read once.

The fixtures are 20 MB of YAML that take libyaml about 10 s to parse, so they are parsed once
per machine into `.ua-collections/` (where `make test` installs the other collections) and
read back as JSON. Run as a script, this writes that copy: the Makefile does so at install.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import yaml

COPY = (
    Path(__file__).resolve().parents[2]
    / ".ua-collections"
    / f"matomo-fixtures-{metadata.version('device_detector')}.json"
)


@cache
def fixtures() -> dict[str, list[dict[str, Any]]]:
    """Each upstream fixture file's entries, by file name (`bots.yml`, `smartphone-1.yml`...)."""
    if COPY.exists():
        return json.loads(COPY.read_text())
    files = resources.files("device_detector") / "tests" / "fixtures" / "upstream"
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    parsed = {
        entry.name: [
            e for e in (yaml.load(entry.read_text(), Loader=loader) or []) if isinstance(e, dict)
        ]
        for entry in sorted(files.iterdir(), key=lambda entry: entry.name)
        if entry.name.endswith(".yml")
    }
    if COPY.parent.is_dir():
        partial = COPY.with_suffix(f".{id(parsed)}.tmp")  # workers may write at once
        partial.write_text(json.dumps(parsed))
        partial.replace(COPY)
    return parsed


if __name__ == "__main__":
    fixtures()
