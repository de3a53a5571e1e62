"""Summing a batch of hits in memory, so each distinct stat is written once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from sitelens.analytics.hits import Hit, counts


def sum_counts(hits: Iterable[Hit]) -> dict[tuple[int, str, str, str], int]:
    """How much each (website_id, name, value, day) grows by: one entry per key."""
    totals: Counter[tuple[int, str, str, str]] = Counter()
    for hit in hits:
        totals.update((hit.website_id, name, value, day) for name, value, day in counts(hit))
    return dict(totals)
