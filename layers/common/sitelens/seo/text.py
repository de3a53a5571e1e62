"""Text as search engines and readers see it, in any language: a title's displayed width,
words counted by script, keywords without stop words or the site's name, viewport values.

Widths are Liberation Sans' (metric-compatible with Arial, the font of titles in search
results; `scripts/make_title_widths.py` writes the table); a character it lacks counts 1 em
when East Asian wide, else the table's average. Words: Chinese and Japanese are written without
spaces, so each Han, Hiragana or Katakana character counts as one word there; everything
else is split on whitespace. Stop words come from `stopwordsiso` (stopwords-iso, 50+
languages), chosen by the page's `lang`, with English as well, as titles mix them.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache
from importlib import resources
from typing import Final

import regex

TITLE_FONT_PX: Final = 20  # the size of a result's title in Google's desktop results
_EAST_ASIAN_WIDE: Final = frozenset({"W", "F"})
# letters of scripts written without spaces between words: one word per character
_UNSPACED: Final = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]")
# From a word's first letter or digit to its end: one match a word that holds one. The end is
# the whitespace of `str.split`, which also splits on \x1c-\x1f (`\s` does not).
_WORD_FROM_ITS_FIRST_LETTER: Final = regex.compile(r"[\p{L}\p{N}][^\s\x1c-\x1f]*")
_HIRAGANA: Final = regex.compile(r"\p{Hiragana}+")
# " | ", " - ", " — ", " · ", " :: ", " » " between a page's title and its site's name
_TITLE_SEPARATORS: Final = re.compile(r"\s+(?:[|\-\u2013\u2014\u00b7\u2022\u00bb/]|::)\s+")
_KEYWORD: Final = regex.compile(r"[\p{L}\p{N}]+(?:['\u2019][\p{L}\p{N}]+)*")
MIN_KEYWORD_LENGTH: Final = 3  # "a", "of", "to": too short to mean anything on their own


@cache
def _widths() -> dict[int, int]:
    data = resources.files("sitelens.seo").joinpath("title_widths.json").read_text()
    return {int(codepoint): width for codepoint, width in json.loads(data).items()}


@cache
def _average_width() -> float:
    letters = [width for codepoint, width in _widths().items() if chr(codepoint).isalpha()]
    return sum(letters) / len(letters)


def title_width(text: str) -> int:
    """The width of `text` in pixels, set in the font and size of search results' titles."""
    widths = _widths()
    thousandths = 0.0
    for char in text:
        known = widths.get(ord(char))
        if known is not None:
            thousandths += known
        elif unicodedata.east_asian_width(char) in _EAST_ASIAN_WIDE:
            thousandths += 1000
        else:
            thousandths += _average_width()
    return round(thousandths * TITLE_FONT_PX / 1000)


def word_count(text: str) -> int:
    """Words of running text: whitespace-separated words holding a letter or digit, and
    each Chinese or Japanese character. Two passes of C over the text, not a loop over its
    words (60 ms to 16 ms on a 1 MB page)."""
    rest, unspaced = _UNSPACED.subn(" ", text)
    return unspaced + len(_WORD_FROM_ITS_FIRST_LETTER.findall(rest))


@cache
def stop_words(language: str) -> frozenset[str]:
    """The stop words of a language (its primary subtag) and of English."""
    import stopwordsiso

    words = set(stopwordsiso.stopwords("en"))
    primary = language.split("-", 1)[0].lower()
    if primary and primary != "en" and stopwordsiso.has_lang(primary):
        words |= set(stopwordsiso.stopwords(primary))
    return frozenset(word.casefold() for word in words)


def without_site_name(title: str, site_names: list[str]) -> str:
    """The title without the segments that name the site ("Pricing | Acme" -> "Pricing"):
    a segment equal to one of `site_names`, or holding one of them as a word."""
    segments = _TITLE_SEPARATORS.split(title)
    if len(segments) < 2:
        return title
    names = [name.casefold() for name in site_names if name]
    kept = [
        segment
        for segment in segments
        if not any(
            segment.casefold() == name or name in _KEYWORD.findall(segment.casefold())
            for name in names
        )
    ]
    return " ".join(kept) if kept else title


def keywords(text: str, language: str = "") -> list[str]:
    """The distinct words of `text` worth finding on a page, case-folded: stop words (of
    the language and English) and words under three letters are left out; Chinese and
    Japanese runs count as keywords of their own."""
    stops = stop_words(language)
    found: list[str] = []
    for word in _KEYWORD.findall(text.casefold()):
        if _UNSPACED.search(word):
            # Japanese particles (hiragana) separate the words of a phrase
            candidates = [part for part in _HIRAGANA.split(word) if len(part) >= 2]
        elif word in stops or len(word) < MIN_KEYWORD_LENGTH:
            continue
        else:
            candidates = [word]
        found += [candidate for candidate in candidates if candidate not in found]
    return found


def has_word(text: str, word: str) -> bool:
    """Whether `word` occurs in `text` as a whole word, not inside a longer one (Chinese
    and Japanese words: anywhere, as they are written without spaces)."""
    if word not in text:  # substring search is fast; most misses end here
        return False
    if _UNSPACED.search(word):
        return True
    for match in re.finditer(re.escape(word) + r"(?![^\W_])", text):
        start = match.start()
        if start == 0 or not text[start - 1].isalnum():
            return True
    return False


# --- the viewport (as browsers and Lighthouse's viewport audit parse it) -------------------

MIN_SCALE: Final = 0.1  # CSS Device Adaptation's bounds of initial-scale
MAX_SCALE: Final = 10.0
MAX_VIEWPORT_WIDTH: Final = 10_000
_VIEWPORT_PROPERTY: Final = re.compile(r"\s*([^\s=,;]+)\s*(?:=\s*([^\s,;]*))?\s*[,;]?")


def viewport(content: str) -> dict[str, str]:
    """The properties of a viewport `<meta>` content, names lower-cased."""
    found: dict[str, str] = {}
    for name, value in _VIEWPORT_PROPERTY.findall(content):
        found.setdefault(name.lower(), value.strip().lower())
    return found


def _number(value: str) -> float | None:
    try:
        number = float(value)
    except ValueError:
        return None
    return number if number == number else None  # NaN is no number


def valid_width(value: str) -> bool:
    """`device-width`, `device-height` or a length of 1 to 10,000 pixels."""
    if value in ("device-width", "device-height"):
        return True
    number = _number(value.removesuffix("px"))
    return number is not None and 1 <= number <= MAX_VIEWPORT_WIDTH


def valid_scale(value: str) -> bool:
    """A number from 0.1 to 10."""
    number = _number(value)
    return number is not None and MIN_SCALE <= number <= MAX_SCALE
