"""Whole numbers as requests carry them: JSON integers (3261.0 is one, as JSON Schema says),
a form's digits; never booleans, fractions or negatives."""

from __future__ import annotations

import math

import pytest

from sitelens.core import numbers

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("value", "integer"),
    [
        (3261, 3261),
        (3261.0, 3261),
        (-2.0, -2),
        (0, 0),
        (1.5, None),
        (True, None),
        (False, None),
        (math.inf, None),
        (math.nan, None),
        ("7", None),
        (None, None),
        ([1], None),
    ],
)
def test_a_json_integer(value: object, integer: int | None) -> None:
    assert numbers.integer(value) == integer


@pytest.mark.parametrize(
    ("value", "whole"),
    [
        (3261, 3261),
        (3261.0, 3261),
        (" 42 ", 42),
        ("0", 0),
        ("9" * 18, 10**18 - 1),
        ("9" * 19, None),
        (10**18, None),
        (1e18, None),
        (-1, None),
        ("-1", None),
        ("1.0", None),
        ("١٢", None),
        ("", None),
        (True, None),
        (0.5, None),
        (None, None),
    ],
)
def test_a_whole_number_from_json_or_a_form(value: object, whole: int | None) -> None:
    assert numbers.whole(value) == whole


@pytest.mark.parametrize(
    ("text", "record_id"),
    [
        ("1", 1),
        ("0042", 42),
        ("9" * 18, 10**18 - 1),
        ("9" * 19, None),
        ("0", None),
        ("-1", None),
        ("+1", None),
        (" 1", None),
        ("1.0", None),
        ("١٢", None),
        ("", None),
    ],
)
def test_a_record_id_in_a_path_is_a_positive_number_in_digits_alone(
    text: str, record_id: int | None
) -> None:
    assert numbers.record_id(text) == record_id
