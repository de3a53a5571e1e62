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


# `parse` as a JSON Schema pattern (ECMA-262 and Python alike), which `make openapi` writes
# into the documents (`Host`, `HostList`): exact for ASCII text; beyond ASCII a superset, as
# IDNA's rules for other scripts (and for `xn--` labels) are no regular expression.
_H16 = "[0-9A-Fa-f]{1,4}"
_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_IPV4 = rf"{_OCTET}(?:\.{_OCTET}){{3}}"
_LS32 = f"(?:{_H16}:{_H16}|{_IPV4})"
# RFC 3986's IPv6address: eight groups, or fewer around one `::` that stands for one or more
_IPV6 = "(?:{})".format(
    "|".join(
        [
            rf"(?:{_H16}:){{6}}{_LS32}",
            rf"::(?:{_H16}:){{5}}{_LS32}",
            rf"(?:{_H16})?::(?:{_H16}:){{4}}{_LS32}",
            *(
                rf"(?:(?:{_H16}:){{0,{before}}}{_H16})?::{after}"
                for before, after in enumerate(
                    [
                        rf"(?:{_H16}:){{3}}{_LS32}",
                        rf"(?:{_H16}:){{2}}{_LS32}",
                        rf"{_H16}:{_LS32}",
                        _LS32,
                        _H16,
                        "",
                    ],
                    start=1,
                )
            ),
        ]
    )
)
# A label's character: a letter, a digit, `_`, or any character past ASCII and Latin-1's
# controls but white space (inside a label, `-` too). A negated class: a fuzzer builds a
# generator of a wide positive range in about a second, one of this in a millisecond.
_NAME_CHAR = r"[^\x00-\x2f:-@\[-^`{-\xa0\s]"
_INNER_CHAR = r"[^\x00-\x2c./:-@\[-^`{-\xa0\s]"
_LABEL = f"{_NAME_CHAR}(?:{_INNER_CHAR}{{0,61}}{_NAME_CHAR})?"


def _host_pattern(scope: str) -> str:
    """A name, an IPv6 address (with a zone, as `ipaddress` takes one) or either address
    in brackets; `scope` is a character class of a zone's characters."""
    name = rf"{_LABEL}(?:\.{_LABEL})*\.?"
    zoned = rf"{_IPV6}(?:%{scope}+)?"
    return rf"{name}|{zoned}|\[(?:{_IPV4}|{zoned})\]"


PATTERN = f"^(?:{_host_pattern('[^%]')})$"
# Hosts as comma-separated text (a key's or an endpoint's `projects`): parts trimmed, empty
# ones dropped.
LIST_PATTERN = rf"^[\s,]*(?:(?:{_host_pattern('[^%,]')})(?:\s*,[\s,]*|\s*$))*$"
MAX_TEXT_LENGTH = MAX_NAME_LENGTH + 1  # a name of 253 and its trailing dot


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
