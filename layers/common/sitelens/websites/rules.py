"""The rules of a website's fields: its domain, excluded IP addresses and query parameters."""

from __future__ import annotations

import ipaddress

from sitelens.core import hosts, timezones
from sitelens.core.errors import FieldError, echoed

MAX_DOMAIN_LENGTH = 255
MAX_PARAM_LENGTH = 255
INVALID_DOMAIN = "Invalid domain name."
DOMAIN_TAKEN = "The domain has already been taken."
# After a rename (docs/websites-domains.md): the old domain's hits still count to the
# website for RENAMED_TRACKED_SECONDS, as Plausible's domain change does (72 hours, for the
# sites' scripts to be updated: plausible/analytics#2803), and its share URLs redirect to
# the new domain for RENAMED_REDIRECT_SECONDS (bookmarks and links in mails), after which
# the rename note is removed by the table's TTL.
RENAMED_TRACKED_SECONDS = 72 * 3600
RENAMED_REDIRECT_SECONDS = 90 * 86_400
_PARAM_FORBIDDEN = set("=&#?/ \t")


# A website's `traffic_alerts`: 0 (off), or how many times its baseline an hour's
# pageviews must reach (a spike) or fall below (a drop): 2 to 20, by default 3
# (`webhooks.anomalies`, docs/traffic-alerts.md).
TRAFFIC_ALERTS_OFF = 0
TRAFFIC_ALERTS = (TRAFFIC_ALERTS_OFF, *range(2, 21))
DEFAULT_TRAFFIC_ALERTS = 3

DEFAULT_TIMEZONE = "UTC"
INVALID_TIMEZONE = "The timezone field must be an IANA time zone name, such as Europe/Berlin."


def check_timezone(value: object) -> str:
    """An IANA time zone name (`Europe/Berlin`, `UTC`), as the tz database spells it
    (`core.timezones`); an empty one is none, the default (UTC), as a form's empty field."""
    if isinstance(value, str) and not value.strip():
        return DEFAULT_TIMEZONE
    if not isinstance(value, str) or not timezones.known(value.strip()):
        raise FieldError(INVALID_TIMEZONE)
    return value.strip()


def normalize_domain(raw: str) -> hosts.Host:
    """`https://www.Example.com:8080/` -> the host `example.com`; FieldError unless the
    text is a host name (a registrable one: a dot and an alphabetic or IDN top-level
    domain; or `localhost` and names under it) or an IP address, optionally written as an
    origin."""
    text = raw.strip()
    if len(text) > MAX_DOMAIN_LENGTH:
        raise FieldError(INVALID_DOMAIN)
    lowered = text.lower()
    for scheme in ("http://", "https://"):
        if lowered.startswith(scheme):
            text = text[len(scheme) :]
            break
    text = text.removesuffix("/")
    try:
        host = hosts.parse(_without_port(text))
    except hosts.InvalidHost:
        raise FieldError(INVALID_DOMAIN) from None
    if not host.ip and not _is_registrable(host) and not _is_loopback_name(host):
        raise FieldError(INVALID_DOMAIN)
    return host


def _is_loopback_name(host: hosts.Host) -> bool:
    """`localhost` or a name under it (RFC 6761: browsers resolve them to loopback), for
    tracking pages served on a developer's machine, as loopback addresses are."""
    return host.ascii == "localhost" or host.ascii.endswith(".localhost")


def _without_port(authority: str) -> str:
    """`host:port` -> `host`; `[v6]:port` -> `[v6]`; a bare IPv6 address stays whole."""
    if authority.startswith("["):
        end = authority.find("]")
        rest = authority[end + 1 :] if end > 0 else ""
        if rest and not (rest.startswith(":") and rest[1:].isdigit()):
            raise FieldError(INVALID_DOMAIN)
        return authority[: end + 1] if end > 0 else authority
    host, colon, port = authority.rpartition(":")
    if colon and host.count(":") == 0 and port.isdigit():
        return host
    return authority


def _is_registrable(host: hosts.Host) -> bool:
    """At least two labels of letters, digits and hyphens; an alphabetic or IDN TLD."""
    labels = host.labels
    tld = labels[-1]
    return (
        len(labels) >= 2
        and (tld.isalpha() or tld.startswith("xn--"))
        and all(label.replace("-", "").isalnum() for label in labels)
    )


def check_ip_line(line: str) -> str | None:
    try:
        ipaddress.ip_network(line, strict=False) if "/" in line else ipaddress.ip_address(line)
    except ValueError:
        return f"{echoed(line)} is not a valid IP address or CIDR range."
    return None


def check_param_line(line: str) -> str | None:
    if line == "&":
        return None
    if len(line) > MAX_PARAM_LENGTH or _PARAM_FORBIDDEN & set(line):
        return f"{echoed(line)} is not a valid query parameter name."
    return None
