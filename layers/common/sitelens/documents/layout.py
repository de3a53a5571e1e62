"""A document's pages: A4, the brand's name (and logo) and the title at the top of each
page, the contact line, "Made with Sitelens" and the page number at the bottom, and the
blocks documents are made of (headings, paragraphs, figures, tables).

Drawn with fpdf2 (pure Python, no browser: docs/documents.md says why) in DejaVu Sans,
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
MAX_CELL_LINES = 3  # lines of a table's cell; the rest is cut with "…"
_LINE = 3.8  # mm, a table's line at 8 pt
_PAD = 1.0  # mm, inside a table's cell
_BREAKS = " /?&-_=."  # where a cell's line may break: after a space or URL punctuation
_BOTTOM = 18  # mm below which text goes to the next page (the footer's)
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


Cells = list[list[str]]  # a table row's cells, each its lines


def _height(cells: Cells) -> float:
    return max(len(lines) for lines in cells) * _LINE + 2 * _PAD


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
        self.set_auto_page_break(True, margin=_BOTTOM)
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

    def paragraph(
        self, text: str, size: float = 10, grey: bool = False, bold: bool = False
    ) -> None:
        self.set_font(FAMILY, "B" if bold else "", size)
        self.set_text_color(*(_GREY if grey else _BLACK))
        self.multi_cell(0, size * 0.5, readable(text, 2_000), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        self.set_text_color(*_BLACK)
        self.set_font(FAMILY, "", 10)

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

    def grid(
        self, columns: Sequence[str], rows: Sequence[Sequence[Any]], widths: Sequence[int]
    ) -> None:
        """A table with a header row (repeated on each page it spans); `widths` relative.
        A cell wraps to at most `MAX_CELL_LINES` lines (cut with "…"): drawn line by line,
        since fpdf2's own tables measure text a character at a time (seconds for the few
        hundred rows of a large audit's document)."""
        total = self.w - self.l_margin - self.r_margin
        sized = [total * w / sum(widths) for w in widths]
        self.set_draw_color(200, 200, 200)
        self.set_line_width(0.2)
        heading = self._cells([readable(c, 60) for c in columns], sized, True)
        self.set_auto_page_break(
            False, margin=_BOTTOM
        )  # rows break pages here, whole, with the heading again
        try:
            for n, values in enumerate(rows):
                cells = self._cells([readable(v) for v in values], sized)
                above = _height(heading) if n == 0 else 0.0
                if self.get_y() + above + _height(cells) > self.page_break_trigger:
                    self.add_page()
                    above = _height(heading)
                if above:
                    self._row(heading, sized, header=True)
                self._row(cells, sized)
        finally:
            self.set_auto_page_break(True, margin=_BOTTOM)
        self.set_font(FAMILY, "", 10)
        self.ln(2)

    def _cells(self, texts: Sequence[str], sized: Sequence[float], bold: bool = False) -> Cells:
        self.set_font(FAMILY, "B" if bold else "", 8)
        return [self._wrapped(t, w - 2 * _PAD) for t, w in zip(texts, sized, strict=True)]

    def _row(self, cells: Cells, sized: Sequence[float], header: bool = False) -> None:
        self.set_font(FAMILY, "B" if header else "", 8)
        height = _height(cells)
        top, x = self.get_y(), self.l_margin
        for lines, width in zip(cells, sized, strict=True):
            if header:
                self.set_fill_color(*self.accent)
                self.rect(x, top, width, height, style="DF")
                self.set_text_color(255, 255, 255)
            else:
                self.rect(x, top, width, height)
                self.set_text_color(*_BLACK)
            for n, line in enumerate(lines):
                self.set_xy(x + _PAD, top + _PAD + n * _LINE)
                self.cell(width - 2 * _PAD, _LINE, line)
            x += width
        self.set_text_color(*_BLACK)
        self.set_xy(self.l_margin, top + height)

    def _wrapped(self, text: str, width: float) -> list[str]:
        """The text in lines that fit `width`, broken after a space or URL punctuation where
        one is near, at most `MAX_CELL_LINES`."""
        lines: list[str] = []
        while text and len(lines) < MAX_CELL_LINES:
            if self.get_string_width(text) <= width:
                lines.append(text)
                return lines
            low, high = 1, len(text)  # the longest prefix that fits
            while low < high:
                middle = (low + high + 1) // 2
                if self.get_string_width(text[:middle]) <= width:
                    low = middle
                else:
                    high = middle - 1
            cut = max((text.rfind(c, 0, low) for c in _BREAKS), default=-1) + 1
            cut = cut if cut > low // 2 else low
            lines.append(text[:cut].rstrip())
            text = text[cut:].lstrip()
        if text:  # more than fits: the last line ends with "…"
            last = lines[-1]
            while last and self.get_string_width(last + "…") > width:
                last = last[:-1]
            lines[-1] = last + "…"
        return lines or [""]

    def output_bytes(self) -> bytes:
        return bytes(self.output())
