"""One environment variable read as a typed value (`SITELENS_<NAME>`): a flag, seconds,
a count, ports, networks; each out-of-bounds value a ConfigError that names it."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass

PREFIX = "SITELENS_"


@dataclass(frozen=True)
class Ports:
    """Ports as inclusive ranges (`80,443,8000-8999` is three), so that `1-65535` is one
    range to test rather than a set of 65,535 ports built at every settings load."""

    ranges: tuple[tuple[int, int], ...]

    def __contains__(self, port: object) -> bool:
        return isinstance(port, int) and any(low <= port <= high for low, high in self.ranges)


Networks = tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]


class ConfigError(RuntimeError):
    """A required environment variable is missing or malformed."""


def required(name: str) -> str:
    value = os.environ.get(PREFIX + name, "").strip()
    if not value:
        raise ConfigError(f"{PREFIX}{name} is not set.")
    return value


def flag(name: str) -> bool:
    raw = os.environ.get(PREFIX + name, "").strip().lower()
    if raw in {"", "0", "false", "no", "off"}:
        return False
    if raw in {"1", "true", "yes", "on"}:
        return True
    raise ConfigError(f"{PREFIX}{name} must be 1 or 0, not {raw!r}.")


def seconds(name: str, default: float, maximum: float) -> float:
    raw = os.environ.get(PREFIX + name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value <= maximum:
        raise ConfigError(f"{PREFIX}{name} must be a number of seconds from 0 to {maximum:g}.")
    return value


def count(name: str, default: int, maximum: int) -> int:
    raw = os.environ.get(PREFIX + name, "").strip()
    if not raw:
        return default
    if not raw.isascii() or not raw.isdigit() or int(raw) > maximum:
        raise ConfigError(f"{PREFIX}{name} must be a whole number from 0 to {maximum}.")
    return int(raw)


def ports(name: str, default: Ports) -> Ports:
    """Ports and ranges of ports, comma-separated: `80,443,8000-8999`."""
    raw = os.environ.get(PREFIX + name, "").strip()
    if not raw:
        return default
    ranges: list[tuple[int, int]] = []
    for part in raw.split(","):
        first, _, last = part.strip().partition("-")
        bounds = (first, last or first)
        if not all(b.isascii() and b.isdigit() and 1 <= int(b) <= 65535 for b in bounds):
            raise ConfigError(
                f"{PREFIX}{name} must list ports from 1 to 65535 or ranges of them, "
                "such as 80,443,8000-8999."
            )
        ranges.append((int(bounds[0]), int(bounds[1])))
    return Ports(tuple(ranges))


def networks(name: str) -> Networks:
    """Addresses and CIDR ranges, separated by commas or white space: `10.0.0.5, 2001:db8::/32`."""
    raw = os.environ.get(PREFIX + name, "").replace(",", " ").split()
    try:
        return tuple(ipaddress.ip_network(part, strict=False) for part in raw)
    except ValueError:
        raise ConfigError(
            f"{PREFIX}{name} must list IP addresses or CIDR ranges, such as 10.0.0.5,10.1.0.0/16."
        ) from None
