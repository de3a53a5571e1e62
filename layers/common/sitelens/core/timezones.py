"""IANA time zones: the names a website's or a query's `timezone` may be.

The list is the `tzdata` package's (a dependency), not the machine's database: every
machine and Lambda then knows the same names, and `make openapi` writes the same list into
the documents' `TimeZone` enum (a test holds the two together). Legacy links such as
`US/Eastern` are in it, as the tz database keeps them.
"""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def names() -> frozenset[str]:
    """Every zone name of the installed tzdata release."""
    text = resources.files("tzdata").joinpath("zones").read_text("utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


def known(name: object) -> bool:
    """Whether `name` is a zone of `names()`, spelled exactly."""
    return isinstance(name, str) and name in names()
