"""The report: every check in API order, exact entry shape, weights, score and bands."""

from __future__ import annotations

import dataclasses
import json

import pytest

from sitelens.seo.analysis import BANDS, WEIGHTS, Report, Result, analyse, band, weighted_score
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
    # text_compression (high) and load_time (medium) fail: 202 - 15 of 202
    assert not report.results["text_compression"]["passed"]
    assert not report.results["load_time"]["passed"]
    assert report.score == round(100 * 187 / 202) == 93


def test_total_weight() -> None:
    assert sum(WEIGHTS[c.importance] for c in CHECKS.values()) == 12 * 10 + 14 * 5 + 12 * 1


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
    import sitelens.seo.checks as checks

    parsed: list[object] = []
    real = checks.LexborHTMLParser

    def counting(*args: object, **kwargs: object) -> object:
        parsed.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(checks, "LexborHTMLParser", counting)
    analyse(make_site(GOOD_PAGE))
    assert len(parsed) == 1
