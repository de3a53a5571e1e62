"""ISO 4217 currency codes: what a revenue goal sums in and an event's revenue is sent in.

The list is pycountry's copy of ISO 4217 (a dependency, refreshed with each release), less
the two codes that are no money: XXX ("no currency") and XTS (reserved for testing).
Precious metals (XAU) and units such as XDR stay, as ISO lists them. `make openapi`
writes the same list into the documents' `Currency` enum (a test holds them together).
"""

from __future__ import annotations

from functools import cache
from typing import Final

NOT_MONEY: Final = frozenset({"XXX", "XTS"})


@cache
def codes() -> frozenset[str]:
    """Every accepted code, upper case."""
    import pycountry  # 50 ms: only where a currency is checked

    return frozenset(c.alpha_3 for c in pycountry.currencies) - NOT_MONEY


def known(code: object) -> bool:
    """Whether `code` is an accepted ISO 4217 code, as ISO writes it (upper case)."""
    return isinstance(code, str) and code in codes()
