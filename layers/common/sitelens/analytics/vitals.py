"""Core Web Vitals from real visits, as a tracking request carries them: the script's
`vitals` part measures LCP, INP, CLS, FCP and TTFB as Google's `web-vitals` library does
and sends them once per page view, with its first engagement. Each is checked here and
stored on that engagement's row: milliseconds, and CLS in thousandths (`vital_cls`), as
whole numbers the warehouse's plain types hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

NAMES: Final = ("lcp", "inp", "cls", "fcp", "ttfb")
SHARES: Final = ("good", "needs_improvement", "poor")
# the query API's metrics of them: p75 of each, and its shares
METRICS: Final = (
    *(f"p75_{name}" for name in NAMES),
    *(f"{name}_{share}" for name in NAMES for share in SHARES),
)
MAX_MS: Final = 600_000  # ten minutes: a page slower than that measured nothing useful
MAX_CLS: Final = 100  # layout shift scores are fractions of the viewport, summed
CLS_SCALE: Final = 1000  # CLS is stored in thousandths (0.1 -> 100)


class InvalidVital(ValueError):
    def __init__(self, name: str) -> None:
        bound = f"a number from 0 to {MAX_CLS}" if name == "cls" else f"0 to {MAX_MS:,} ms"
        super().__init__(f"The {name} field must be {bound}.")
        self.field = name


def parse(fields: Mapping[str, str]) -> dict[str, int] | None:
    """The vitals a request carries, as stored (CLS in thousandths); None when none."""
    found: dict[str, int] = {}
    for name in NAMES:
        text = fields.get(name)
        if text is None or text == "":
            continue
        try:
            value = float(text)
        except ValueError:
            raise InvalidVital(name) from None
        top = MAX_CLS if name == "cls" else MAX_MS
        if not 0 <= value <= top:  # NaN fails too
            raise InvalidVital(name)
        found[name] = round(value * CLS_SCALE) if name == "cls" else round(value)
    return found or None
