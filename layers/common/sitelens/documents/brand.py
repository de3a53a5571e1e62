"""The brand a document is made under: whose name, logo, colour and contact line it carries,
and whether it says it was made with Sitelens. Sitelens' own is the default; a project's or
an account's white label (issue 45, part 3) is passed in its place."""

from __future__ import annotations

import re
from dataclasses import dataclass

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
