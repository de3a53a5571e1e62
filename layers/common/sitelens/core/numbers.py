"""Whole numbers as requests carry them: a JSON integer, a JSON number without a fraction
(JSON Schema counts 3261.0 as an integer, so the documents allow it), or a form's digits.
Booleans are never numbers here, though Python counts `True` as 1."""

from __future__ import annotations

from typing import Any

MAX_DIGITS = 18  # ids and counts: a DynamoDB number, a signed 64-bit integer


def integer(value: Any) -> int | None:
    """A JSON integer as an int (3261.0 too); None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():  # False for inf and nan
        return int(value)
    return value if isinstance(value, int) else None


def whole(value: Any) -> int | None:
    """A whole number of at most `MAX_DIGITS` digits, from JSON (`integer`) or a form's
    digits (surrounding spaces ignored); None for anything else, negatives included."""
    if isinstance(value, str):
        digits = value.strip()
        if digits.isascii() and digits.isdigit() and len(digits) <= MAX_DIGITS:
            return int(digits)
        return None
    number = integer(value)
    return number if number is not None and 0 <= number < 10**MAX_DIGITS else None


def record_id(text: str) -> int | None:
    """A record's id as a path carries it: a positive whole number in digits alone (no sign,
    no spaces), at most `MAX_DIGITS` long; None for anything else."""
    if text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS and int(text) > 0:
        return int(text)
    return None
