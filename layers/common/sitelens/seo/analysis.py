"""The SEO report: run every check on a fetched site and weigh the results into a score.

What a report stores is bounded: every text and list of `results` is capped (`bounded`) and
the whole is kept under `MAX_RESULTS_BYTES` (`fitted`). So is the time it takes: a page
larger than `IN_PROCESS_BYTES` is analysed in a worker process that is stopped after
`ANALYSIS_SECONDS`, since no check can interrupt the parser.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Final, Literal, NotRequired, TypeAlias, TypedDict, cast

from sitelens.seo import timebox
from sitelens.seo.checks import (
    JSON,
    Category,
    Check,
    Context,
    Errors,
    Importance,
    Outcome,
    checks_for,
)
from sitelens.seo.checks.outcome import FieldOutcome
from sitelens.seo.page import Response, Site

logger = logging.getLogger(__name__)

Band: TypeAlias = Literal["good", "decent", "bad"]

WEIGHTS: Final[Mapping[Importance, int]] = {"high": 10, "medium": 5, "low": 1}
# (lowest score, result), best first: a score gets the first band it reaches
BANDS: Final[tuple[tuple[int, Band], ...]] = ((80, "good"), (50, "decent"), (0, "bad"))

MAX_TEXT = 1_000  # characters of a text value: a whole title or URL, not a whole page
MAX_ITEMS = 20  # entries of a list value: examples to fix, not an inventory
MAX_ITEM_TEXT = 300  # characters of a text inside a list or mapping value: a long URL
MAX_ERROR_TEXT = 300  # characters of an error sentence: a few words quoted from the page
CUT = "…"  # ends a text that was cut, and starts the entry that counts left-out list entries
# the serialised `results` (JSON, non-ASCII escaped): a quarter of DynamoDB's 400 KB item
MAX_RESULTS_BYTES = 100_000
# a page up to this size is analysed in this process: the worst markup of this size parses
# in about 0.3 s (of 128 KiB, 3 s), and sending it to a worker process costs about 1 ms
IN_PROCESS_BYTES = 64 * 1024
# wall clock for analysing a larger page: with the 10 s fetch, a report is answered well
# within the report functions' 25 s timeout
ANALYSIS_SECONDS = 8.0


class Result(TypedDict):
    """One check's entry in a report's `results`."""

    passed: bool
    importance: Importance
    category: Category
    value: JSON
    errors: Errors | None
    source: NotRequired[Literal["field"]]  # judged by real visits' vitals, not the fetch


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


def cut(text: str, limit: int) -> str:
    """`text` if it has at most `limit` characters, else its start ending in `CUT`."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + CUT


def left_out(count: int) -> str:
    """The entry that ends a cut list: how many entries were left out."""
    return f"{CUT} {count} more"


def bounded(value: JSON, max_text: int = MAX_TEXT, max_items: int = MAX_ITEMS) -> JSON:
    """`value` with every text cut to its limit and a list cut to `max_items` entries,
    then `left_out(n)`; numbers, booleans and None are kept."""
    if isinstance(value, str):
        return cut(value, max_text)
    if isinstance(value, Mapping):
        return {key: bounded(item, min(max_text, MAX_ITEM_TEXT)) for key, item in value.items()}
    if isinstance(value, list | tuple):
        kept = [bounded(item, min(max_text, MAX_ITEM_TEXT)) for item in value[:max_items]]
        omitted = len(value) - len(kept)
        return [*kept, left_out(omitted)] if omitted else kept
    return value


def _serialised_size(results: JSON | Mapping[str, Result]) -> int:
    # as a report record stores them; with non-ASCII escaped, also their longest JSON
    return len(json.dumps(results, separators=(",", ":")))


def fitted(found: Mapping[str, Result]) -> dict[str, Result]:
    """The results with every value and error bounded; while they are still over
    `MAX_RESULTS_BYTES`, the largest values are emptied (texts to `CUT`, lists to their
    `left_out` entry). Bounded errors alone stay far below the budget."""
    results = {
        key: Result(
            passed=entry["passed"],
            importance=entry["importance"],
            category=entry["category"],
            value=bounded(entry["value"]),
            errors=_bounded_errors(entry["errors"]),
        )
        for key, entry in found.items()
    }
    for key, entry in found.items():
        if "source" in entry:
            results[key]["source"] = entry["source"]
    if _serialised_size(results) > MAX_RESULTS_BYTES:
        largest_first = sorted(results, key=lambda key: -_serialised_size(results[key]["value"]))
        for key in largest_first:
            results[key]["value"] = bounded(found[key]["value"], max_text=0, max_items=0)
            if _serialised_size(results) <= MAX_RESULTS_BYTES:
                break
    return results


def _bounded_errors(errors: Errors | None) -> Errors | None:
    if errors is None:
        return None
    return {key: cut(sentence, MAX_ERROR_TEXT) for key, sentence in errors.items()}


def run(check: Check, context: Context) -> Result:
    """One check's result entry; a check that raises fails instead of losing the report."""
    try:
        outcome = check.run(context)
    except Exception:
        logger.exception("SEO check %s raised", check.key)
        outcome = Outcome(False, None, {"internal": "This check could not be run on this page."})
    result = Result(
        passed=outcome.passed,
        importance=check.importance,
        category=check.category,
        value=outcome.value,
        errors=outcome.errors,
    )
    if isinstance(outcome, FieldOutcome):
        result["source"] = "field"
    return result


def checked(site: Site) -> dict[str, Result]:
    """Every check's bounded result, in this process: parse the page once, run the checks
    (the field-data ones too when the site has field data: `checks_for`)."""
    context = Context(site)
    runs = checks_for(site.field_vitals)
    return fitted({key: run(check, context) for key, check in runs.items()})


def unfinished(check: Check) -> Result:
    """The result of a check whose page could not be analysed in time: failed, saying so."""
    sentence = f"The page could not be analysed within {ANALYSIS_SECONDS:g} s."
    return Result(
        passed=False,
        importance=check.importance,
        category=check.category,
        value=None,
        errors={"unfinished": sentence},
    )


# A page every check reads something of: the hreflang check's language registries, the
# keyword checks' stop words and the title widths load on a first analysis. A worker's loads
# die with it, so a container whose pages were all large would load them again in every
# worker it forks (60 ms); the first large page has them loaded here, once.
_WARM_UP = Site(
    Response(
        url="https://example.com/",
        status=200,
        headers={"content-type": "text/html; charset=utf-8"},
        body=b'<!doctype html><html lang="en"><head><title>Sitelens warm-up</title>'
        b'<link rel="alternate" hreflang="en-US" href="https://example.com/"></head>'
        b"<body><h1>Warm-up</h1><p>Words of the page for the keyword checks.</p></body></html>",
        elapsed=0.0,
    )
)


@cache
def _loaded_for_workers() -> None:
    checked(_WARM_UP)


def analyse(site: Site) -> Report:
    """Analyse a fetched site: parse the page once, run every check, score the results.

    A page over `IN_PROCESS_BYTES` is analysed in a worker process given
    `ANALYSIS_SECONDS`; when it does not finish, every check fails as `unfinished`.
    """
    if len(site.page.body) <= IN_PROCESS_BYTES:
        results = checked(site)
    else:
        _loaded_for_workers()
        done = timebox.call(checked, site, ANALYSIS_SECONDS)
        if done is None:
            logger.warning("SEO analysis of a %d-byte page did not finish", len(site.page.body))
            done = {key: unfinished(check) for key, check in checks_for(site.field_vitals).items()}
        results = cast(dict[str, Result], done)
    score = weighted_score(results)
    return Report(results=results, score=score, result=band(score))
