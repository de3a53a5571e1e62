"""Hosts: the one normalisation of a host name or IP address, and the one URL split.

Websites (their domain and its claim), tracked hits (the page's host), report projects and
the report fetcher all read hosts through `parse`, so the same host is the same text
everywhere: lower-case IDNA (UTS 46) ASCII for names, without a trailing dot; IP addresses
in their canonical form (`2001:0db8:0::1` -> `2001:db8::1`), IPv6 bracketed where a URL
would bracket it. `Host.site` drops a leading `www.`: `www.example.com` and `example.com`
are one website and one project.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

import idna

MAX_NAME_LENGTH = 253  # DNS: 255 octets on the wire, 253 characters in text
MAX_LABEL_LENGTH = 63
# ASCII names are checked here (IDNA would refuse the `_` that real host names carry);
# anything else goes through IDNA's UTS 46 mapping and validation.
_PLAIN_NAME = re.compile(r"[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*")


class InvalidHost(ValueError):
    """Not a host name or IP address."""


@dataclass(frozen=True)
class Host:
    """A normalised host."""

    ascii: str  # IDNA ASCII name, or canonical IP address without brackets
    ip: bool

    @property
    def authority(self) -> str:
        """The host as a URL or a `Host` header writes it (IPv6 in brackets), without port."""
        return f"[{self.ascii}]" if ":" in self.ascii else self.ascii

    @property
    def site(self) -> str:
        """What a website, a hit and a project are keyed on: the authority without `www.`."""
        if self.ip:
            return self.authority
        return self.ascii.removeprefix("www.")

    @property
    def site_name(self) -> str:
        """`site` as people read it: IDN labels in Unicode (`xn--bcher-kva.de` -> `bücher.de`)."""
        return _unicode(self.site) if "xn--" in self.site else self.site

    @property
    def labels(self) -> list[str]:
        return [] if self.ip else self.ascii.split(".")


def parse(text: str) -> Host:
    """The host of `text`: a name in any case or script, or an IPv4/IPv6 address in any
    spelling, bracketed or not, with or without a trailing dot. InvalidHost otherwise."""
    return _parse(text.strip())


def site(text: str) -> str:
    """`parse(text).site`: the key of a website, a project or a hit's page."""
    return _parse(text.strip()).site


def split_url(url: str) -> SplitResult | None:
    """The parts of `url`, or None when it cannot be parsed, a malformed or out-of-range
    port included (`urlsplit` finds those only when `.port` is read)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return None
    return parts


@functools.lru_cache(maxsize=4096)  # hits repeat a few hosts; parsing IDN is slow-ish
def _parse(text: str) -> Host:
    candidate = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    try:
        address = ipaddress.ip_address(candidate)
    except ValueError:
        pass
    else:
        return Host(str(address), ip=True)
    if "[" in text or ":" in text:
        raise InvalidHost(text)
    name = text.lower().removesuffix(".")
    if not name or len(name) > MAX_NAME_LENGTH:
        raise InvalidHost(text)
    if not (_PLAIN_NAME.fullmatch(name) and "xn--" not in name):
        try:
            name = idna.encode(name, uts46=True).decode("ascii")
        except (idna.IDNAError, UnicodeError):
            raise InvalidHost(text) from None
    if len(name) > MAX_NAME_LENGTH or any(
        not 0 < len(label) <= MAX_LABEL_LENGTH for label in name.split(".")
    ):
        raise InvalidHost(text)
    return Host(name, ip=False)


def _unicode(name: str) -> str:
    try:
        return idna.decode(name)
    except (idna.IDNAError, UnicodeError):
        return name
