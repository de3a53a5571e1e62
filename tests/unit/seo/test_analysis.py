"""The report: every check in API order, exact entry shape, weights, score and bands."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from sitelens.seo import analysis, timebox
from sitelens.seo.analysis import (
    BANDS,
    IN_PROCESS_BYTES,
    MAX_ERROR_TEXT,
    MAX_ITEM_TEXT,
    MAX_ITEMS,
    MAX_RESULTS_BYTES,
    MAX_TEXT,
    WEIGHTS,
    Report,
    Result,
    analyse,
    band,
    bounded,
    checked,
    fitted,
    unfinished,
    weighted_score,
)
from sitelens.seo.checks import CHECKS, Check, Context, Outcome
from sitelens.seo.page import Response, Site

# API.md, "Reports (seo base)": key, importance, category, in that order
EXPECTED_CHECKS = [
    ("title", "high", "seo"),
    ("meta_description", "high", "seo"),
    ("headings", "high", "seo"),
    ("content_keywords", "high", "seo"),
    ("image_keywords", "high", "seo"),
    ("seo_friendly_url", "high", "seo"),
    ("404_page", "high", "seo"),
    ("robots", "high", "seo"),
    ("robots_txt", "low", "seo"),
    ("noindex", "high", "seo"),
    ("in_page_links", "medium", "seo"),
    ("language", "medium", "seo"),
    ("favicon", "medium", "seo"),
    ("canonical", "medium", "seo"),
    ("hreflang", "low", "seo"),
    ("link_text", "low", "seo"),
    ("crawlable_anchors", "low", "seo"),
    ("http_status_code", "high", "seo"),
    ("text_compression", "high", "performance"),
    ("load_time", "medium", "performance"),
    ("page_size", "medium", "performance"),
    ("http_requests", "medium", "performance"),
    ("image_format", "medium", "performance"),
    ("defer_javascript", "low", "performance"),
    ("dom_size", "low", "performance"),
    ("https_encryption", "high", "security"),
    ("mixed_content", "medium", "security"),
    ("server_signature", "medium", "security"),
    ("unsafe_cross_origin_links", "medium", "security"),
    ("plaintext_email", "low", "security"),
    ("structured_data", "medium", "miscellaneous"),
    ("rich_results", "medium", "miscellaneous"),
    ("meta_viewport", "medium", "miscellaneous"),
    ("charset", "medium", "miscellaneous"),
    ("sitemap", "low", "miscellaneous"),
    ("social", "low", "miscellaneous"),
    ("content_length", "low", "miscellaneous"),
    ("text_html_ratio", "low", "miscellaneous"),
    ("inline_css", "low", "miscellaneous"),
    ("deprecated_html_tags", "low", "miscellaneous"),
]
ENTRY_KEYS = {"passed", "importance", "category", "value", "errors"}

GOOD_PAGE = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Fresh Organic Apples | Acme Orchard</title>
<meta name="description" content="Organic apples picked this morning.">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/favicon.svg">
<link rel="canonical" href="https://acme.example/organic-apples">
<link rel="alternate" hreflang="de" href="https://acme.example/de/bio-aepfel">
<meta property="og:title" content="Fresh Organic Apples">
<script src="/app.js" defer></script>
</head>
<body>
<h1>Apples from our orchard</h1>
<img src="/apples.webp" alt="A basket of apples">
<p>Acme Orchard grows fresh organic apples. {" ".join(["Crisp and sweet."] * 200)}</p>
<a href="/varieties">Our apple varieties</a>
<a href="https://github.com/acme" target="_blank" rel="noopener">Acme on GitHub</a>
</body>
</html>"""


def make_site(
    html: str,
    *,
    url: str = "https://acme.example/organic-apples",
    status: int = 200,
    headers: dict[str, str] | None = None,
    elapsed: float = 0.3,
    content_encoding: str = "br",
) -> Site:
    """A fetched site with a robots.txt and a proper 404 page."""
    page = Response(
        url=url,
        status=status,
        headers=headers or {"content-type": "text/html; charset=utf-8", "server": "nginx"},
        body=html.encode(),
        elapsed=elapsed,
        content_encoding=content_encoding,
    )
    robots = Response(
        url="https://acme.example/robots.txt",
        status=200,
        headers={},
        body=b"User-agent: *\nDisallow: /admin\nSitemap: https://acme.example/sitemap.xml\n",
        elapsed=0.1,
    )
    return Site(page=page, robots_txt=robots, missing_page_status=404)


def entries(*importances_passed: tuple[str, bool]) -> dict[str, Result]:
    """Synthetic results with the given importance and outcome."""
    return {
        f"check{i}": Result(
            passed=passed,
            importance=importance,  # type: ignore[typeddict-item]
            category="seo",
            value=None,
            errors=None if passed else {"x": "failed"},
        )
        for i, (importance, passed) in enumerate(importances_passed)
    }


def test_registry_matches_the_api_in_order() -> None:
    assert [(c.key, c.importance, c.category) for c in CHECKS.values()] == EXPECTED_CHECKS


def test_every_entry_has_exactly_the_five_keys_in_registry_order() -> None:
    report = analyse(make_site(GOOD_PAGE))
    assert list(report.results) == [key for key, _, _ in EXPECTED_CHECKS]
    for key, entry in report.results.items():
        assert set(entry) == ENTRY_KEYS, key
        assert isinstance(entry["passed"], bool), key
        assert entry["importance"] == CHECKS[key].importance
        assert entry["category"] == CHECKS[key].category
        assert (entry["errors"] is None) is entry["passed"], key
    json.dumps(dataclasses.asdict(report))  # the record must serialise as is


def test_good_page_scores_good() -> None:
    report = analyse(make_site(GOOD_PAGE))
    failed = [key for key, entry in report.results.items() if not entry["passed"]]
    assert failed == []
    assert (report.score, report.result) == (100, "good")


def test_bare_page_scores_bad() -> None:
    site = make_site(
        "<p>hi</p>",
        url="http://acme.example/Apples_Page",
        status=500,
        headers={"server": "Apache/2.4.1"},
        content_encoding="",
        elapsed=3.0,
    )
    report = analyse(site)
    assert report.result == "bad"
    assert report.score < 50


def test_score_is_the_passed_share_of_the_weights() -> None:
    report = analyse(make_site(GOOD_PAGE, content_encoding="", elapsed=2.5))
    # text_compression (high) and load_time (medium) fail: 203 - 15 of 203
    assert not report.results["text_compression"]["passed"]
    assert not report.results["load_time"]["passed"]
    assert report.score == round(100 * 188 / 203) == 93


def test_total_weight() -> None:
    assert sum(WEIGHTS[c.importance] for c in CHECKS.values()) == 12 * 10 + 15 * 5 + 13 * 1


@pytest.mark.parametrize(
    ("results", "score"),
    [
        (entries(("high", True), ("medium", True), ("low", True)), 100),
        (entries(("high", False), ("medium", False), ("low", False)), 0),
        (entries(("high", True), ("low", False)), 91),
        (entries(("high", False), ("medium", True), ("low", True)), 38),
        ({}, 0),
    ],
)
def test_weighted_score(results: dict[str, Result], score: int) -> None:
    assert weighted_score(results) == score


@pytest.mark.parametrize(
    ("passed", "score", "result"),
    [(80, 80, "good"), (79, 79, "decent"), (50, 50, "decent"), (49, 49, "bad")],
)
def test_band_boundaries_from_results(passed: int, score: int, result: str) -> None:
    results = entries(*[("low", i < passed) for i in range(100)])
    assert weighted_score(results) == score
    assert band(weighted_score(results)) == result


@pytest.mark.parametrize(
    ("score", "result"),
    [(100, "good"), (80, "good"), (79, "decent"), (50, "decent"), (49, "bad"), (0, "bad")],
)
def test_band(score: int, result: str) -> None:
    assert band(score) == result


def test_bands_are_ordered_best_first() -> None:
    assert [lowest for lowest, _ in BANDS] == sorted((lowest for lowest, _ in BANDS), reverse=True)
    assert BANDS[-1][0] == 0


def test_a_raising_check_fails_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(context: Context) -> Outcome:
        raise RuntimeError("bug")

    monkeypatch.setitem(CHECKS, "title", Check("title", "high", "seo", broken))
    report = analyse(make_site(GOOD_PAGE))
    assert report.results["title"] == {
        "passed": False,
        "importance": "high",
        "category": "seo",
        "value": None,
        "errors": {"internal": "This check could not be run on this page."},
    }
    assert report.score == round(100 * 192 / 202)


def test_report_is_frozen() -> None:
    report = analyse(make_site(GOOD_PAGE))
    assert isinstance(report, Report)
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.score = 0  # type: ignore[misc]


def test_page_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from sitelens.seo.checks import context

    parsed: list[object] = []
    real = context.LexborHTMLParser

    def counting(*args: object, **kwargs: object) -> object:
        parsed.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(context, "LexborHTMLParser", counting)
    analyse(make_site(GOOD_PAGE))
    assert len(parsed) == 1


# -- bounded values and results ----------------------------------------------------------


def test_texts_are_cut_to_their_limit_ending_in_an_ellipsis() -> None:
    assert bounded("a" * MAX_TEXT) == "a" * MAX_TEXT
    assert bounded("a" * (MAX_TEXT + 1)) == "a" * (MAX_TEXT - 1) + "…"
    assert bounded({"server": "b" * 5000}) == {"server": "b" * (MAX_ITEM_TEXT - 1) + "…"}
    assert bounded(12345) == 12345 and bounded(None) is None and bounded(True) is True


def test_lists_keep_their_first_entries_then_say_how_many_are_left_out() -> None:
    assert bounded([f"u{n}" for n in range(MAX_ITEMS)]) == [f"u{n}" for n in range(MAX_ITEMS)]
    assert bounded([f"u{n}" for n in range(MAX_ITEMS + 7)]) == [
        *(f"u{n}" for n in range(MAX_ITEMS)),
        "… 7 more",
    ]
    assert bounded(["x" * 5000]) == ["x" * (MAX_ITEM_TEXT - 1) + "…"]
    assert bounded(["a", "b"], max_text=0, max_items=0) == ["… 2 more"]
    assert bounded([], max_text=0, max_items=0) == []


def test_error_sentences_are_cut() -> None:
    found = entries(("high", False))
    found["check0"]["errors"] = {"missing": "Title words not in the page text: " + "w, " * 500}
    sentence = fitted(found)["check0"]["errors"]["missing"]  # type: ignore[index]
    assert len(sentence) == MAX_ERROR_TEXT and sentence.endswith("…")


def test_results_over_the_budget_lose_their_largest_values_first() -> None:
    found = entries(*[("low", False)] * 38)
    for n, entry in enumerate(found.values()):
        entry["value"] = [f"https://example.com/{n}/{'x' * 280}"] * 25  # 20 x 300 characters
    found["check5"]["value"] = "short"
    results = fitted(found)
    size = len(json.dumps(results, separators=(",", ":")))
    assert MAX_RESULTS_BYTES - 8_000 < size <= MAX_RESULTS_BYTES
    emptied = [key for key, entry in results.items() if entry["value"] == ["… 25 more"]]
    kept = [key for key, entry in results.items() if len(entry["value"]) == MAX_ITEMS + 1]  # type: ignore[arg-type]
    assert emptied and kept and len(emptied) + len(kept) == 37
    assert results["check5"]["value"] == "short"


def test_the_worst_page_stays_within_the_budget() -> None:
    # every value as long as allowed, in characters that JSON escapes to 12 bytes each
    wide = "\U0001d400" * 400
    images = "".join(f'<img src="/{wide}{n}.png">' for n in range(30))
    links = "".join(f'<a href="http://{n}.example/{wide}" target="_blank">x</a>' for n in range(30))
    hreflangs = "".join(f'<link rel="alternate" hreflang="{wide}{n}">' for n in range(30))
    html = (
        f"<title>{' '.join(wide[:50] + str(n) for n in range(40))}</title>"
        f'<meta name="description" content="{wide * 3}"><link rel="canonical" href="{wide}">'
        f"<h1>{wide}</h1><h1>{wide}</h1>{images}{links}{hreflangs}"
        + "".join(f'<p style="x"><script src="http://x/{wide}{n}"></script></p>' for n in range(30))
        + "".join(f'<a href="mailto:{wide}{n}@x.org">{wide}</a>' for n in range(30))
    )
    headers = {"content-type": "text/html", "server": f"nginx/1.2 {wide}", "x-powered-by": wide}
    report = analyse(make_site(html, url="https://acme.example/page", headers=headers))
    assert len(json.dumps(report.results, separators=(",", ":"))) <= MAX_RESULTS_BYTES
    assert set(report.results) == set(CHECKS)
    assert report.results["image_keywords"]["value"] == ["… 30 more"]  # emptied to fit


# -- bounded time ------------------------------------------------------------------------


def timeboxed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, object]]:
    """The seconds each call of a worker process was given, and its answer."""
    calls: list[tuple[float, object]] = []
    real = timebox.call

    def call(function: Callable[[Any], object], argument: object, seconds: float) -> object:
        answer = real(function, argument, seconds)
        calls.append((seconds, answer))
        return answer

    monkeypatch.setattr(timebox, "call", call)
    return calls


def test_a_large_page_is_analysed_in_a_worker_process_with_the_same_results() -> None:
    site = make_site(GOOD_PAGE.replace("</body>", "<p>filler</p>" * 10_000 + "</body>"))
    assert len(site.page.body) > IN_PROCESS_BYTES
    assert analyse(site).results == checked(site)


@pytest.mark.parametrize(
    ("name", "html"),
    [
        ("100,000 nested divs", "<body>" + "<div>" * 100_000),
        ("a select of 300,000 options", "<select>" + "<option>x</option>" * 300_000),
        (
            "one element with 400,000 attributes",
            "<div " + " ".join(f"a{n}" for n in range(400_000)),
        ),
    ],
)
def test_a_page_the_parser_cannot_finish_in_time_fails_every_check_saying_so(
    monkeypatch: pytest.MonkeyPatch, name: str, html: str
) -> None:
    monkeypatch.setattr(analysis, "ANALYSIS_SECONDS", 1.0)
    boxed = timeboxed(monkeypatch)
    report = analyse(make_site(html))
    assert boxed == [(1.0, None)], name  # one call, given 1 s, stopped without an answer
    assert (report.score, report.result) == (0, "bad")
    assert report.results == {key: unfinished(check) for key, check in CHECKS.items()}
    assert report.results["title"]["errors"] == {
        "unfinished": "The page could not be analysed within 1 s."
    }


def test_a_check_that_does_not_finish_in_time_fails_the_analysis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def stuck(context: Context) -> Outcome:
        time.sleep(60)
        raise AssertionError("not reached")

    monkeypatch.setattr(analysis, "ANALYSIS_SECONDS", 0.5)
    monkeypatch.setitem(CHECKS, "dom_size", Check("dom_size", "low", "performance", stuck))
    report = analyse(make_site(GOOD_PAGE + " " * IN_PROCESS_BYTES))
    assert report.results == {key: unfinished(check) for key, check in CHECKS.items()}


# Pathological 5 MB pages analysed within the budget: make bench, tests/bench/test_hostile.py.
