"""A document's pages: A4, the brand's name (and logo) and the title at the top of each
page, the contact line, "Made with Sitelens" and the page number at the bottom, and the
blocks documents are made of (headings, paragraphs, figures, tables).

Drawn with fpdf2 (pure Python, no browser: docs/exports.md says why) in DejaVu Sans,
embedded (subset to the glyphs used), so that text of any script prints; a character the
font lacks prints as a box, never fails the document. Text from crawled pages is cleaned
first (`readable`): control and direction-override characters removed, length capped.
"""

from __future__ import annotations

import io
import logging
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fpdf import FPDF
from fpdf.enums import XPos, YPos

from sitelens.documents.brand import SITELENS, Brand

logger = logging.getLogger(__name__)
# fpdf2 warns, naming them, of the glyphs a font lacks: text of crawled pages, not a fault
logging.getLogger("fpdf.output").setLevel(logging.ERROR)

FONTS = Path(__file__).parent / "fonts"
FAMILY = "dejavu"
MAX_TEXT = 300  # characters of a crawled text (title, URL) printed; cut with "…"
_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn"}  # controls, formats (bidi overrides), surrogates
_GREY = (90, 90, 90)
_BLACK = (20, 20, 20)


def readable(value: Any, limit: int = MAX_TEXT) -> str:
    """A value as printed: invisible characters removed (a tab or newline is a space), cut
    to `limit` characters."""
    text = "" if value is None else str(value)
    text = "".join(
        " " if c in "\t\r\n" else c
        for c in text
        if c in "\t\r\n" or unicodedata.category(c) not in _INVISIBLE
    )
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Document(FPDF):
    """An A4 document under a brand, titled `title` on every page."""

    def __init__(self, title: str, brand: Brand = SITELENS) -> None:
        super().__init__(orientation="portrait", unit="mm", format="A4")
        self.brand = brand
        self.heading_title = readable(title, 120)
        self.accent = brand.accent_rgb()
        self.add_font(FAMILY, "", str(FONTS / "DejaVuSans.ttf"))
        self.add_font(FAMILY, "B", str(FONTS / "DejaVuSans-Bold.ttf"))
        self.set_margins(15, 15, 15)
        self.set_auto_page_break(True, margin=18)
        self.set_title(self.heading_title)
        self.set_author(readable(brand.name, 80))
        self.set_creator("Sitelens")
        self.set_font(FAMILY, size=10)
        self.add_page()

    # fpdf2 calls these on every page
    def header(self) -> None:
        x = self.l_margin
        if self.brand.logo_png:
            try:
                self.image(io.BytesIO(self.brand.logo_png), x=x, y=10, h=9)
                x += 26
            except Exception as error:  # a logo that does not decode is left out, never fatal
                logger.warning("brand logo not drawn: %r", error)
        self.set_xy(x, 11)
        self.set_font(FAMILY, "B", 12)
        self.set_text_color(*self.accent)
        self.cell(80, 7, readable(self.brand.name, 60))
        self.set_font(FAMILY, "", 9)
        self.set_text_color(*_GREY)
        self.set_xy(self.w - self.r_margin - 95, 11)
        self.cell(95, 7, self.heading_title, align="R")
        self.set_draw_color(*self.accent)
        self.set_line_width(0.6)
        self.line(self.l_margin, 20, self.w - self.r_margin, 20)
        self.set_xy(self.l_margin, 24)
        self.set_text_color(*_BLACK)

    def footer(self) -> None:
        self.set_y(-13)
        self.set_font(FAMILY, "", 8)
        self.set_text_color(*_GREY)
        words = [readable(self.brand.contact, 120)] if self.brand.contact else []
        if self.brand.made_with:
            words.append("Made with Sitelens")
        self.cell(150, 5, "  ·  ".join(words))
        self.cell(0, 5, f"Page {self.page_no()} of {{nb}}", align="R")

    # blocks
    def heading(self, text: str, size: int = 14) -> None:
        if self.get_y() > self.h - 40:  # a heading never ends a page alone
            self.add_page()
        self.ln(3)
        self.set_font(FAMILY, "B", size)
        self.set_text_color(*self.accent)
        self.multi_cell(0, size * 0.5, readable(text), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        self.set_text_color(*_BLACK)
        self.set_font(FAMILY, "", 10)
        self.ln(1)

    def paragraph(self, text: str, size: float = 10, grey: bool = False) -> None:
        self.set_font(FAMILY, "", size)
        self.set_text_color(*(_GREY if grey else _BLACK))
        self.multi_cell(0, size * 0.5, readable(text, 2_000), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        self.set_text_color(*_BLACK)

    def figures(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Big figures side by side, each over its label (the score, the issue counts)."""
        width = (self.w - self.l_margin - self.r_margin) / max(1, len(pairs))
        top = self.get_y()
        for n, (value, label) in enumerate(pairs):
            self.set_xy(self.l_margin + n * width, top)
            self.set_font(FAMILY, "B", 22)
            self.set_text_color(*self.accent)
            self.cell(width, 11, readable(value, 20), align="C")
            self.set_xy(self.l_margin + n * width, top + 11)
            self.set_font(FAMILY, "", 9)
            self.set_text_color(*_GREY)
            self.cell(width, 5, readable(label, 40), align="C")
        self.set_text_color(*_BLACK)
        self.set_xy(self.l_margin, top + 19)

    def table(
        self, columns: Sequence[str], rows: Sequence[Sequence[Any]], widths: Sequence[int]
    ) -> None:
        """A table with a header row (repeated on each page it spans); `widths` relative."""
        self.set_font(FAMILY, "", 8)
        self.set_draw_color(200, 200, 200)
        self.set_line_width(0.2)
        with super().table(
            col_widths=tuple(widths),
            headings_style=_heading_style(self.accent),
            line_height=4.2,
            padding=1,
            text_align="LEFT",
        ) as drawn:
            drawn.row([readable(c, 60) for c in columns])
            for values in rows:
                drawn.row([readable(v) for v in values])
        self.set_font(FAMILY, "", 10)
        self.ln(2)

    def output_bytes(self) -> bytes:
        return bytes(self.output())


def _heading_style(accent: tuple[int, int, int]) -> Any:
    from fpdf.fonts import FontFace

    return FontFace(emphasis="BOLD", color=(255, 255, 255), fill_color=accent)
