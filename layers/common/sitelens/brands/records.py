"""A brand as stored, shown and drawn: set whole (its logo fetched when its URL is new),
read, deleted; the brand a project's pages and emails use (its own, else the account's,
else Sitelens's own look)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitelens.core import clock, errors, hosts
from sitelens.data import brands as stored_brands

if TYPE_CHECKING:
    from sitelens.brands.inputs import BrandFields

LOGO_PATH = "/share/logos/"  # + the logo's hash: its address on the SEO API (no key)
MADE_WITH = "Made with Sitelens"


def owner_of(project: str | None) -> str:
    """The stored brand's key: the account's (None) or a project's (a site, normalised)."""
    if project is None:
        return stored_brands.ACCOUNT
    name = project_name(project)
    if not name or len(name) > 255:
        raise errors.NotFound()
    return stored_brands.project_owner(name)


def project_name(host: str) -> str:
    """A project's name as reports name it (`www.Example.com` -> `example.com`)."""
    try:
        return hosts.parse(host).site_name
    except hosts.InvalidHost:
        return host.strip().lower()


def public(record: dict[str, Any], project: str | None, base_url: str) -> dict[str, Any]:
    """A brand as the API shows it."""
    sha = record.get("logo_sha256")
    return {
        "object": "brand",
        "project": project_name(project) if project is not None else None,
        "name": record["name"],
        "logo_url": record.get("logo_url"),
        "logo": f"{base_url}{LOGO_PATH}{sha}" if sha else None,
        "accent": record.get("accent"),
        "contact": record.get("contact"),
        "made_with": int(record.get("made_with", 1)),
        "frame_ancestors": list(record.get("frame_ancestors") or []),
        "updated_at": record["updated_at"],
    }


def get(account: str, project: str | None, base_url: str) -> dict[str, Any]:
    """The brand of a project (or, None, the account's); 404 when none is set."""
    record = stored_brands.get(account, owner_of(project))
    if record is None:
        raise errors.NotFound()
    return public(record, project, base_url)


def put(account: str, project: str | None, fields: BrandFields, base_url: str) -> dict[str, Any]:
    """Set a project's (or the account's) brand whole. A logo URL other than the stored one
    is fetched and checked first: a refused logo changes nothing."""
    # Imported here: share pages draw brands without loading the fetcher.
    from sitelens.brands import logos

    owner = owner_of(project)
    before = stored_brands.get(account, owner) or {}
    record: dict[str, Any] = {
        "name": fields.name,
        "accent": fields.accent,
        "contact": fields.contact or None,
        "made_with": fields.made_with,
        "frame_ancestors": fields.frame_ancestors.split("\n") if fields.frame_ancestors else [],
        "updated_at": clock.now_iso(),
    }
    if fields.logo_url:
        record["logo_url"] = fields.logo_url
        if fields.logo_url == before.get("logo_url") and before.get("logo_sha256"):
            record["logo_sha256"] = before["logo_sha256"]  # fetched once, when it was set
        else:
            logo = logos.fetched(fields.logo_url)
            logos.store(logo)
            record["logo_sha256"] = logo.sha256
    stored_brands.put(account, owner, {k: v for k, v in record.items() if v is not None})
    return public(record, project, base_url)


def delete(account: str, project: str | None) -> None:
    """Remove a project's (or the account's) brand; 404 when none is set."""
    if not stored_brands.delete(account, owner_of(project)):
        raise errors.NotFound()


@dataclass(frozen=True)
class Brand:
    """What a renderer (a PDF, an email) needs of a brand; Sitelens's own when none is set."""

    name: str = "Sitelens"
    accent: str | None = None  # `#rrggbb`; None: the renderer's own
    logo: bytes | None = None
    logo_type: str | None = None  # image/png, image/jpeg or image/webp
    contact: str | None = None
    made_with: bool = True  # the small "Made with Sitelens" line
    custom: bool = False  # whether the owner set it


@dataclass(frozen=True)
class Shown:
    """A brand as a page or an email draws it: the logo by our own URL."""

    name: str
    accent: str | None
    logo_url: str | None
    contact: str | None
    made_with: bool
    custom: bool
    frame_ancestors: tuple[str, ...] = ()


def _effective(account: str, project: str | None) -> dict[str, Any] | None:
    """The stored brand that applies: the project's, else the account's, else None."""
    owners = [stored_brands.ACCOUNT]
    if project:
        owners.insert(0, stored_brands.project_owner(project_name(project)))
    for found in stored_brands.many(account, owners):
        if found is not None:
            return found
    return None


def for_project(account: str, project: str | None) -> Brand:
    """The brand a renderer draws a project's documents with (the seam for PDF exports):
    its name, accent, logo bytes, contact line and whether "Made with Sitelens" shows."""
    record = _effective(account, project)
    if record is None:
        return Brand()
    sha = record.get("logo_sha256")
    logo = stored_brands.get_logo(str(sha)) if sha else None
    return Brand(
        name=str(record["name"]),
        accent=record.get("accent"),
        logo=logo[1] if logo else None,
        logo_type=logo[0] if logo else None,
        contact=record.get("contact"),
        made_with=bool(int(record.get("made_with", 1))),
        custom=True,
    )


def shown(account: str, project: str | None, base_url: str) -> Shown:
    """The brand a project's share pages and client emails draw (no logo bytes read)."""
    record = _effective(account, project)
    if record is None:
        return Shown("Sitelens", None, None, None, made_with=True, custom=False)
    sha = record.get("logo_sha256")
    return Shown(
        name=str(record["name"]),
        accent=record.get("accent"),
        logo_url=f"{base_url}{LOGO_PATH}{sha}" if sha else None,
        contact=record.get("contact"),
        made_with=bool(int(record.get("made_with", 1))),
        custom=True,
        frame_ancestors=tuple(record.get("frame_ancestors") or ()),
    )
