"""Refresh the crawlers' published IP ranges the layer ships
(`sitelens/analytics/crawls/ranges/*.json`): each file names its `source`; this fetches it
and writes its prefixes and the time it was fetched. `make crawler-ranges` runs it; the
tests never do (they read the shipped files, and no test reaches the network). Run it
before a release: OpenAI and Perplexity change their lists now and then.

The sources: OpenAI's and Perplexity's JSON (`{"prefixes": [{"ipv4Prefix": ...}]}`), and
Anthropic's documentation page of its addresses (CIDRs read from the page's text).
"""

from __future__ import annotations

import ipaddress
import json
import re
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[1] / "layers/common/sitelens/analytics/crawls/ranges"
_CIDR = re.compile(r"\b(?:\d{1,3}(?:\.\d{1,3}){3}/\d{1,2}|[0-9a-fA-F:]{2,39}::?/\d{1,3})\b")


def prefixes(raw: bytes) -> list[str]:
    """The networks of a published list: JSON's `ipv4Prefix`/`ipv6Prefix` entries, or every
    CIDR a page's text names; each checked, in order, once."""
    try:
        entries = json.loads(raw)["prefixes"]
        found = [e.get("ipv4Prefix") or e.get("ipv6Prefix") or "" for e in entries]
    except (ValueError, KeyError, TypeError):
        found = _CIDR.findall(raw.decode("utf-8", "replace"))
    networks = []
    for text in found:
        try:
            networks.append(str(ipaddress.ip_network(text, strict=False)))
        except ValueError:
            continue
    return list(dict.fromkeys(networks))


def refresh(path: Path) -> int:
    shipped = json.loads(path.read_text())
    request = urllib.request.Request(shipped["source"], headers={"User-Agent": "sitelens"})  # noqa: S310
    with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 - our listed URLs
        found = prefixes(answer.read())
    if not found:
        raise SystemExit(f"{shipped['source']} listed no prefix: {path.name} left as it was")
    shipped.update(fetched=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), prefixes=found)
    shipped.pop("note", None)
    path.write_text(json.dumps(shipped, indent=1) + "\n")
    return len(found)


def main() -> None:
    for path in sorted(FOLDER.glob("*.json")):
        print(f"{path.name}: {refresh(path)} prefixes")


if __name__ == "__main__":
    main()
