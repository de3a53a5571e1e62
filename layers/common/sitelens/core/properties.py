"""Custom properties and revenue of a hit: their bounds, and their stored form.

A pageview or a custom event may carry properties, a flat map of text keys to text
values (the tracking script's event call with a props object, or a page's
`data-sitelens-*` attributes for its pageview); a custom event may carry revenue, an
amount in a currency, kept in the currency it came in. Stored in the warehouse's rows as
`props` (the map as JSON text, keys sorted), `revenue_amount` (a decimal as text, as
sent, at most `MAX_DECIMALS` places) and `revenue_currency` (ISO 4217 code). Anything
beyond a bound is refused (422 on the field), never cut: a cut value would count under a
value nobody sent. A shared basic: the tracking (`analytics`) and goals' property
matches (`websites.goals`) check by it."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from sitelens.core import currencies

MAX_PROPS: Final = 30  # properties of one hit (as Plausible)
MAX_KEY_LENGTH: Final = 100  # characters of a property's key
MAX_VALUE_LENGTH: Final = 500  # characters of a property's value
MAX_PROPS_TEXT: Final = 16_384  # characters of the `props` field as sent (JSON)
MAX_AMOUNT: Final = Decimal("1000000000000")  # an amount is below a trillion
MAX_DECIMALS: Final = 6
# a property key is what `event:props:<key>` names: letters, digits and `_ - . :`
KEY_PATTERN: Final = re.compile(rf"^[A-Za-z0-9_.:-]{{1,{MAX_KEY_LENGTH}}}$")


class InvalidProperties(ValueError):
    """Properties or revenue beyond a bound; `field` names the request's field."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


def props_text(value: Any) -> str:
    """The stored form of a hit's properties (JSON of a flat map, keys sorted; "" for
    none) from the `props` field: JSON text of an object, or the object itself. Values may
    be text, numbers or booleans (kept as their text)."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        if len(value) > MAX_PROPS_TEXT:
            raise InvalidProperties(
                f"The props field must not exceed {MAX_PROPS_TEXT} characters.", "props"
            )
        try:
            value = json.loads(value)
        except ValueError:
            raise InvalidProperties("The props field must be a JSON object.", "props") from None
    if not isinstance(value, Mapping):
        raise InvalidProperties("The props field must be an object.", "props")
    if len(value) > MAX_PROPS:
        raise InvalidProperties(f"At most {MAX_PROPS} properties on one hit.", "props")
    kept: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not KEY_PATTERN.match(key):
            raise InvalidProperties(
                f"A property key is 1 to {MAX_KEY_LENGTH} letters, digits, '_', '-', '.' "
                f"or ':' (not {str(key)[:MAX_KEY_LENGTH]!r}).",
                "props",
            )
        kept[key] = _prop_value(key, item)
    return json.dumps(dict(sorted(kept.items())), ensure_ascii=False, separators=(",", ":"))


def _prop_value(key: str, item: Any) -> str:
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int | float) and item == item:  # NaN is no value
        text = str(item)
    elif isinstance(item, str):
        text = item
    else:
        raise InvalidProperties(f"Property {key!r} must be text, a number or a boolean.", "props")
    if not text.strip() or len(text) > MAX_VALUE_LENGTH:
        raise InvalidProperties(
            f"Property {key!r} must have 1 to {MAX_VALUE_LENGTH} characters.", "props"
        )
    return text


def revenue(amount: Any, currency: Any) -> tuple[str, str]:
    """The stored amount (decimal text) and currency (ISO 4217, upper case) of an event's
    revenue; ("", "") when neither is sent."""
    if amount in (None, "") and currency in (None, ""):
        return "", ""
    if isinstance(amount, bool) or not isinstance(amount, str | int | float):
        raise InvalidProperties("The revenue amount must be a number.", "revenue")
    try:
        value = Decimal(str(amount).strip())
    except InvalidOperation:
        raise InvalidProperties("The revenue amount must be a number.", "revenue") from None
    if not value.is_finite() or not 0 <= value < MAX_AMOUNT:
        raise InvalidProperties(
            f"The revenue amount must be from 0 to below {MAX_AMOUNT:,}.", "revenue"
        )
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -MAX_DECIMALS:
        raise InvalidProperties(
            f"The revenue amount has at most {MAX_DECIMALS} decimal places.", "revenue"
        )
    # in any case, as Plausible's script may send it (`eur`); stored as ISO writes it
    code = currency.strip().upper() if isinstance(currency, str) else ""
    if not currencies.known(code):
        raise InvalidProperties(
            "The revenue currency must be an ISO 4217 currency code, such as EUR.", "revenue"
        )
    return format(value, "f"), code
