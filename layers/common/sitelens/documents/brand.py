"""The brand a document is made under: whose name, logo, colour and contact line it carries,
and whether it says it was made with Sitelens. Sitelens' own is the default; a project's or
an account's white label (`brands`) in its place: `of_record`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sitelens import brands

_HEX_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")


@dataclass(frozen=True)
class Brand:
    """A document's brand: `logo_png` the logo's bytes (PNG or JPEG), `made_with` whether
    the small "Made with Sitelens" line is printed."""

    name: str = "Sitelens"
    accent: str = "#1d4ed8"
    logo_png: bytes | None = None
    contact: str | None = None
    made_with: bool = True

    def accent_rgb(self) -> tuple[int, int, int]:
        """The accent colour as RGB; Sitelens' own for a value that is not `#rrggbb`."""
        colour = self.accent if _HEX_COLOUR.fullmatch(self.accent or "") else SITELENS.accent
        return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


SITELENS = Brand()


def of_record(account_id: str, record: dict[str, Any]) -> Brand:
    """The brand of an audit's or a report's documents: its site's project's white label,
    else its account's, else Sitelens' own. A WebP logo, which the PDF library cannot draw,
    is left out (the name still heads the page)."""
    host = record.get("project") or urlsplit(str(record.get("url") or "")).hostname
    found = brands.for_project(account_id, str(host) if host else None)
    if not found.custom:
        return SITELENS
    drawable = found.logo_type in ("image/png", "image/jpeg")
    return Brand(
        name=found.name,
        accent=found.accent or SITELENS.accent,
        logo_png=found.logo if drawable else None,
        contact=found.contact,
        made_with=found.made_with,
    )
