"""The optional data-centre rule: a hit whose agent looks like a browser but whose client
address is in a data-centre or cloud range is a bot (headless browsers run there; people
browse from homes, offices and phones).

Off unless SITELENS_DATACENTER_RANGES names a file of ranges, one CIDR a line (text after
the CIDR, and lines starting with `#`, are ignored), as
`scripts/make_datacenter_ranges.py` (not in the layer) writes from the providers' own
published lists. Corporate VPNs and some privacy relays egress from cloud ranges too, so
the rule trades a few real visitors for many headless ones: hence optional.
"""

from __future__ import annotations

import bisect
import ipaddress
from functools import lru_cache

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class Ranges:
    """Sorted, merged address intervals of each IP version, searched by bisection."""

    def __init__(self, networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> None:
        self._starts: dict[int, list[int]] = {4: [], 6: []}
        self._ends: dict[int, list[int]] = {4: [], 6: []}
        for version in (4, 6):
            spans = sorted(
                (int(net.network_address), int(net.broadcast_address))
                for net in networks
                if net.version == version
            )
            for start, end in spans:
                ends = self._ends[version]
                if ends and start <= ends[-1] + 1:
                    ends[-1] = max(ends[-1], end)
                else:
                    self._starts[version].append(start)
                    ends.append(end)

    def __contains__(self, address: Address) -> bool:
        value = int(address)
        starts = self._starts[address.version]
        at = bisect.bisect_right(starts, value) - 1
        return at >= 0 and value <= self._ends[address.version][at]

    def __len__(self) -> int:
        return len(self._starts[4]) + len(self._starts[6])


def parse(text: str) -> Ranges:
    """The ranges of a file's text; lines that are not a CIDR are skipped."""
    networks = []
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        try:
            networks.append(ipaddress.ip_network(words[0], strict=False))
        except ValueError:
            continue
    return Ranges(networks)


@lru_cache(maxsize=2)
def load(path: str) -> Ranges:
    """The ranges of the file at `path`, read once per container."""
    with open(path, encoding="utf-8") as file:
        return parse(file.read())
