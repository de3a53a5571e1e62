"""Finding a proof that an account owns a domain: its token in a DNS TXT record, in a file
on the site, or in a meta tag of the site's home page.

The file and the page are fetched by the report fetcher (`seo.fetch.get`), behind its
guard: http and https only, the ports of `SITELENS_FETCH_PORTS`, public addresses only
(checked after DNS and at every redirect) unless `SITELENS_ALLOW_PRIVATE_URLS=1`,
timeouts, a size cap. A proof counts only when the answer comes from the domain itself:
the final URL after redirects must be on the domain's site.

TXT records are asked with dnspython, a maintained resolver (the system's resolver has no
TXT look-up in the standard library), of the system's name servers, or of
`SITELENS_DNS_NAMESERVER` (`host` or `host:port`): a local stub server in tests, the
developer's own under make serve.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sitelens.core import hosts, nameservers
from sitelens.seo import fetch
from sitelens.seo.connections import Session

PREFIX = "sitelens-verification"
DNS_LABEL = "_sitelens"
FILE_PATH = "/.well-known/sitelens-verification.txt"
DNS_LIFETIME = 3.0  # seconds for each TXT look-up, every retry and server included
FILE_CAP = 4096  # bytes of the file read: a token is 32 characters
NOT_ON_DOMAIN = "The url must be on the domain being verified."


@dataclass(frozen=True)
class Instructions:
    """The three ways to prove the domain with the token; any one of them is enough."""

    domain: str
    token: str

    @property
    def value(self) -> str:
        return f"{PREFIX}={self.token}"

    def public(self, origin: str) -> dict[str, object]:
        return {
            "domain": self.domain,
            "token": self.token,
            "dns": {
                "type": "TXT",
                "names": [f"{DNS_LABEL}.{self.domain}", self.domain],
                "value": self.value,
            },
            "file": {"url": f"{origin}{FILE_PATH}", "content": self.value},
            "meta": {"tag": f'<meta name="{PREFIX}" content="{self.token}">'},
        }


@dataclass(frozen=True)
class Outcome:
    """How the proof was found (`dns`, `file`, `meta`), or None and why each way failed."""

    method: str | None
    reasons: tuple[str, ...] = ()


def origin_of(domain: str, url: str | None) -> str:
    """The site's origin to fetch from: the url's (which must be on the domain's site), or
    https://<domain>; a FetchError when the url is on another site."""
    if url is None:
        return f"https://{hosts.parse(domain).authority}"
    parts = hosts.split_url(url)
    if parts is None or not parts.hostname:
        raise fetch.FetchError(fetch.INVALID_URL)
    try:
        same = hosts.site(parts.hostname) == hosts.site(domain)
    except hosts.InvalidHost:
        same = False
    if not same:
        raise fetch.FetchError(NOT_ON_DOMAIN)
    return f"{parts.scheme.lower()}://{parts.netloc.rpartition('@')[2]}"


def find(instructions: Instructions, url: str | None, methods: tuple[str, ...]) -> Outcome:
    """Look for the token each way of `methods`, in order, until one has it."""
    origin = origin_of(instructions.domain, url)
    home = url or f"{origin}/"
    reasons: list[str] = []
    for method in methods:
        if method == "dns":
            reason = _dns(instructions)
        elif method == "file":
            file_url = f"{origin}{FILE_PATH}"
            reason = _fetched(
                file_url,
                FILE_CAP,
                lambda body: file_holds(body, instructions),
                f"{file_url} does not hold the line {instructions.value}.",
            )
        else:
            reason = _fetched(
                home,
                None,
                lambda body: page_holds(body, instructions),
                f'{home} has no <meta name="{PREFIX}"> tag with the token.',
            )
        if reason is None:
            return Outcome(method)
        reasons.append(reason)
    return Outcome(None, tuple(reasons))


def _dns(instructions: Instructions) -> str | None:
    names = [f"{DNS_LABEL}.{instructions.domain}", instructions.domain]
    try:
        host = hosts.parse(instructions.domain)
    except hosts.InvalidHost:
        host = None
    if host is None or host.ip:
        return "An IP address has no DNS records: prove it with the file or the meta tag."
    for name in names:
        if instructions.value in _txt_values(hosts.parse(name).ascii):
            return None
    return f"No TXT record {instructions.value} was found at {' or '.join(names)}."


def _txt_values(name: str) -> set[str]:
    """The TXT values at `name` (each record's strings joined, as RFC 7208 reads them);
    empty when there are none or the name servers do not answer."""
    # only a DNS check loads dnspython
    import dns.exception

    try:
        answer = nameservers.resolver().resolve(name, "TXT", lifetime=DNS_LIFETIME)
    except dns.exception.DNSException:  # no such name, no TXT, a timeout, no server
        return set()
    return {b"".join(record.strings).decode("utf-8", errors="replace") for record in answer}


def _fetched(url: str, cap: int | None, holds: Callable[[bytes], bool], missing: str) -> str | None:
    """None when the page at `url`, on the domain's site, answers 200 and `holds` the
    token; else why not."""
    session = Session()
    try:
        response = fetch.get(session, url, html_only=False, read_body=True, cap=cap)
    except fetch.FetchError as err:
        return f"{url}: {err}"
    finally:
        session.close()
    final = hosts.split_url(response.url)
    try:
        same = final is not None and hosts.site(final.hostname or "") == hosts.site(url_host(url))
    except hosts.InvalidHost:
        same = False
    if not same:  # a redirect elsewhere proves nothing about this domain
        return f"{url} redirects to another site; the proof must be on the domain itself."
    if response.status != 200:
        return f"{url} answered {response.status}, not 200."
    return None if holds(response.body) else missing


def url_host(url: str) -> str:
    parts = hosts.split_url(url)
    return (parts.hostname if parts else None) or ""


def file_holds(body: bytes, instructions: Instructions) -> bool:
    """A line of the file is the token, or `sitelens-verification=<token>`."""
    lines = {line.strip() for line in body.decode("utf-8", errors="replace").splitlines()}
    return instructions.token in lines or instructions.value in lines


def page_holds(body: bytes, instructions: Instructions) -> bool:
    """A `<meta name="sitelens-verification" content="<token>">` in the page."""
    from selectolax.lexbor import LexborHTMLParser  # only a meta check parses HTML

    for tag in LexborHTMLParser(body.decode("utf-8", errors="replace")).css("meta[name][content]"):
        name = (tag.attributes.get("name") or "").strip().lower()
        if name == PREFIX and (tag.attributes.get("content") or "").strip() == instructions.token:
            return True
    return False
