"""The SEO report: run every check on a fetched site and weigh the results into a score."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias, TypedDict

from sitelens.seo.checks import CHECKS, JSON, Category, Check, Context, Errors, Importance, Outcome
from sitelens.seo.page import Site

logger = logging.getLogger(__name__)

Band: TypeAlias = Literal["good", "decent", "bad"]

WEIGHTS: Final[Mapping[Importance, int]] = {"high": 10, "medium": 5, "low": 1}
# (lowest score, result), best first: a score gets the first band it reaches
BANDS: Final[tuple[tuple[int, Band], ...]] = ((80, "good"), (50, "decent"), (0, "bad"))


class Result(TypedDict):
    """One check's entry in a report's `results`."""

    passed: bool
    importance: Importance
    category: Category
    value: JSON
    errors: Errors | None


@dataclass(frozen=True)
class Report:
    """A page's analysis: one result per check, in registry order, and the score."""

    results: dict[str, Result]
    score: int
    result: Band


def weighted_score(results: Mapping[str, Result]) -> int:
    """0 to 100: the weight of the passed checks over the weight of all of them."""
    total = passed = 0
    for entry in results.values():
        weight = WEIGHTS[entry["importance"]]
        total += weight
        passed += weight if entry["passed"] else 0
    return round(100 * passed / total) if total else 0


def band(score: int) -> Band:
    """`good`, `decent` or `bad` for a score."""
    return next(name for lowest, name in BANDS if score >= lowest)


def run(check: Check, context: Context) -> Result:
    """One check's result entry; a check that raises fails instead of losing the report."""
    try:
        outcome = check.run(context)
    except Exception:
        logger.exception("SEO check %s raised", check.key)
        outcome = Outcome(False, None, {"internal": "This check could not be run on this page."})
    return Result(
        passed=outcome.passed,
        importance=check.importance,
        category=check.category,
        value=outcome.value,
        errors=outcome.errors,
    )


def analyse(site: Site) -> Report:
    """Analyse a fetched site: parse the page once, run every check, score the results."""
    context = Context(site)
    results = {key: run(check, context) for key, check in CHECKS.items()}
    score = weighted_score(results)
    return Report(results=results, score=score, result=band(score))
