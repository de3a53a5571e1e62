"""Websites: the rules of the analytics collection's records."""

from __future__ import annotations

import functools
import ipaddress
from typing import TYPE_CHECKING, Any

import idna

from sitelens import clock, errors, listing, privacy, store
from sitelens.config import settings
from sitelens.errors import FieldError

if TYPE_CHECKING:  # the input models import pydantic, which only parsing handlers need
    from sitelens.models import WebsiteCreate, WebsiteListQuery, WebsiteUpdate

MAX_DOMAIN_LENGTH = 255
INVALID_DOMAIN = "Invalid domain name."
DOMAIN_TAKEN = "The domain has already been taken."

COLLECTION = store.Collection(
    name="websites",
    table=lambda: settings().websites_table,
    orders={"domain": lambda record: record["domain"]},
    filters={"favorite": lambda record: "1" if record["favorite"] else "0"},
)


# -- field rules ------------------------------------------------------------------------


def normalize_domain(raw: str) -> str:
    """`https://www.Example.com/` -> `example.com`; 422 unless a host name or IP address."""
    domain = raw.strip().lower()
    for scheme in ("http://", "https://"):
        domain = domain.removeprefix(scheme)
    domain = domain.removeprefix("www.").removesuffix("/")
    if not domain or len(domain) > MAX_DOMAIN_LENGTH or not _is_host(domain):
        raise FieldError(INVALID_DOMAIN)
    return domain


def domain_key(domain: str) -> str:
    """The ASCII (punycode) form the claim is keyed on, as browsers send hosts."""
    return _ascii_name(domain) or domain


@functools.lru_cache(maxsize=256)
def _ascii_name(domain: str) -> str | None:
    """The IDNA (UTS 46) ASCII form of a host name; None when it is not a valid one."""
    try:
        return idna.encode(domain, uts46=True).decode()
    except (idna.IDNAError, UnicodeError):
        return None


def _is_host(domain: str) -> bool:
    candidate = domain[1:-1] if domain.startswith("[") and domain.endswith("]") else domain
    try:
        ipaddress.ip_address(candidate)
        return True
    except ValueError:
        pass
    ascii_name = _ascii_name(domain)
    if ascii_name is None:
        return False
    labels = ascii_name.split(".")
    # A website needs a registrable name: at least one dot and an alphabetic (or IDN) TLD.
    if len(labels) < 2 or len(ascii_name) > 253:
        return False
    tld = labels[-1]
    if not (tld.isalpha() or tld.startswith("xn--")):
        return False
    return all(
        0 < len(label) <= 63
        and not label.startswith("-")
        and not label.endswith("-")
        and all(ch.isalnum() or ch == "-" for ch in label)
        for label in labels
    )


def check_ip_line(line: str) -> str | None:
    try:
        ipaddress.ip_network(line, strict=False) if "/" in line else ipaddress.ip_address(line)
    except ValueError:
        return f"{line} is not a valid IP address or CIDR range."
    return None


_PARAM_FORBIDDEN = set("=&#?/ \t")


def check_param_line(line: str) -> str | None:
    if line == "&":
        return None
    if len(line) > 255 or _PARAM_FORBIDDEN & set(line):
        return f"{line} is not a valid query parameter name."
    return None


# -- records ----------------------------------------------------------------------------


def show(record: dict[str, Any]) -> dict[str, Any]:
    """The record as the API returns it: the password only as whether one is set."""
    return {
        "id": record["id"],
        "domain": record["domain"],
        "privacy": record["privacy"],
        "password": bool(record.get("password_hash")),
        "email": record["email"],
        "exclude_bots": record["exclude_bots"],
        "exclude_params": record["exclude_params"],
        "exclude_ips": record["exclude_ips"],
        "favorite": bool(record["favorite"]),
        "favorited_at": record.get("favorited_at"),
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
    }


def create(account_id: str, fields: WebsiteCreate) -> dict[str, Any]:
    """A new website of the account; 422 when its domain is taken by anyone."""
    password, _ = privacy.password_changes(None, fields.privacy, fields.password)
    claim = domain_key(fields.domain)
    # The transaction refuses a taken claim too; asking first spares an id for nothing.
    if store.get_claim(COLLECTION, claim) is not None:
        raise errors.Invalid.field("domain", DOMAIN_TAKEN)
    now = clock.now_iso()
    record = {
        "account": account_id,
        "id": store.allocate_id(COLLECTION),
        "domain": fields.domain,
        "search": fields.domain,
        "privacy": fields.privacy or 0,
        "email": fields.email if fields.email is not None else 0,
        "exclude_bots": fields.exclude_bots if fields.exclude_bots is not None else 1,
        "exclude_params": fields.exclude_params or "",
        "exclude_ips": fields.exclude_ips or "",
        "favorite": False,
        "favorited_at": None,
        "created_at": now,
        "updated_at": now,
        **password,
    }
    try:
        store.create(COLLECTION, record, claim=claim)
    except store.Conflict:
        raise errors.Invalid.field("domain", DOMAIN_TAKEN) from None
    _tracking().forget(record)
    return show(record)


def stored(account_id: str, website_id: int) -> dict[str, Any]:
    """The stored website; 404 when it is not the account's."""
    record = store.get(COLLECTION, account_id, website_id)
    if record is None:
        raise errors.NotFound()
    return record


def get(account_id: str, website_id: int) -> dict[str, Any]:
    return show(stored(account_id, website_id))


def update(account_id: str, website_id: int, fields: WebsiteUpdate) -> dict[str, Any]:
    """Apply the fields that were sent; PUT and PATCH alike."""
    current = stored(account_id, website_id)
    changes: dict[str, Any] = fields.model_dump(
        include={"privacy", "email", "exclude_bots", "exclude_params", "exclude_ips"},
        exclude_none=True,
    )
    password, removed = privacy.password_changes(current, fields.privacy, fields.password)
    changes.update(password)
    now = clock.now_iso()
    if fields.favorite is not None and bool(fields.favorite) != bool(current["favorite"]):
        changes["favorite"] = bool(fields.favorite)
        changes["favorited_at"] = now if fields.favorite else None
    changes["updated_at"] = now
    record = store.update(COLLECTION, current, changes, removed)
    if record is None:
        raise errors.NotFound()
    _tracking().forget(record)
    return show(record)


def delete(account_id: str, website_id: int) -> None:
    """Delete the website and its domain claim together; 404 when not the account's.

    Its hits stop counting at once in this container (elsewhere within the caches' 60 s);
    its statistics are removed in the background, after a delay that lets hits still in
    flight be dropped first.
    """
    from sitelens import stats  # it builds on this module

    record = stored(account_id, website_id)
    if not store.delete(COLLECTION, account_id, website_id, claim=domain_key(record["domain"])):
        raise errors.NotFound()
    _tracking().forget(record)
    stats.schedule_removal(website_id)


def _tracking() -> Any:
    """The tracking caches, which must see this process's website changes at once."""
    from sitelens import tracking  # it builds on this module

    return tracking


def list_page(account_id: str, query: WebsiteListQuery) -> listing.Page:
    return listing.list_page(COLLECTION, account_id, query, query.sort_by, show)
