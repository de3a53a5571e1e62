"""Write the data-centre rule's file from the providers' own published range lists:
`python scripts/make_datacenter_ranges.py datacenter-ranges.txt`, then point
SITELENS_DATACENTER_RANGES at the file (see `sitelens.analytics.datacenters`). Run it
again now and then: the lists change weekly."""

from __future__ import annotations

import csv
import io
import json
import sys
import urllib.request
from collections.abc import Callable, Iterator

# provider -> (URL of its published list, how CIDRs are read from it)
Reader = Callable[[bytes], Iterator[str]]


def _aws(raw: bytes) -> Iterator[str]:
    data = json.loads(raw)
    yield from (entry["ip_prefix"] for entry in data["prefixes"])
    yield from (entry["ipv6_prefix"] for entry in data["ipv6_prefixes"])


def _google(raw: bytes) -> Iterator[str]:
    for entry in json.loads(raw)["prefixes"]:
        yield entry.get("ipv4Prefix") or entry["ipv6Prefix"]


def _oracle(raw: bytes) -> Iterator[str]:
    for region in json.loads(raw)["regions"]:
        yield from (cidr["cidr"] for cidr in region["cidrs"])


def _first_column(raw: bytes) -> Iterator[str]:
    for row in csv.reader(io.StringIO(raw.decode())):
        if row and not row[0].startswith("#"):
            yield row[0]


SOURCES: dict[str, tuple[str, Reader]] = {
    "aws": ("https://ip-ranges.amazonaws.com/ip-ranges.json", _aws),
    "google-cloud": ("https://www.gstatic.com/ipranges/cloud.json", _google),
    "oracle-cloud": ("https://docs.oracle.com/en-us/iaas/tools/public_ip_ranges.json", _oracle),
    "digitalocean": ("https://digitalocean.com/geo/google.csv", _first_column),
    "linode": ("https://geoip.linode.com/", _first_column),
}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    lines = ["# data-centre and cloud ranges, one CIDR a line, with its provider"]
    for provider, (url, read) in SOURCES.items():
        with urllib.request.urlopen(url, timeout=30) as answer:  # noqa: S310 - fixed https URLs
            lines += [f"{cidr} {provider}" for cidr in read(answer.read())]
    with open(args[0], "w", encoding="utf-8") as file:
        file.write("\n".join(lines) + "\n")
    print(f"{len(lines) - 1} ranges written to {args[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
