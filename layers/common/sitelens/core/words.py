"""How a count reads in a sentence people read: "1 page", "2 pages", "1,200 pages". The
one rule for plurals on share pages, in digests, reasons and webhooks' texts."""

from __future__ import annotations

# Nouns whose plural is not the singular with "s"
_IRREGULAR = {"entry": "entries", "is": "are", "was": "were", "has": "have"}


def plural(noun: str, count: int) -> str:
    """`noun` as it reads after `count`: singular for exactly 1, plural otherwise."""
    if count == 1:
        return noun
    return _IRREGULAR.get(noun, noun + "s")


def counted(count: int, noun: str) -> str:
    """`count` and its noun, thousands grouped: "1 page", "0 pages", "1,200 pages"."""
    return f"{count:,} {plural(noun, count)}"
