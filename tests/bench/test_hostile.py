"""Time bounds on hostile input, held by `make bench` (`make test` checks the same answers
but times nothing, since a loaded machine would fail a wall-clock bound): the SEO checks
that once took quadratic time, and 5 MB pages analysed within `ANALYSIS_SECONDS`."""

from __future__ import annotations

import time

import pytest

from sitelens.seo.analysis import ANALYSIS_SECONDS, analyse
from sitelens.seo.checks import CHECKS, Context
from tests.bench.hostile_pages import site

CHECK_INPUTS = {
    # was 10 s, quadratic: every start inside the run was tried
    "plaintext_email": ("<p>" + "a" * 100_000 + " @ a@b.org</p>", 0.1),
    # was 1 s, quadratic: every <img> walked all its siblings
    "image_format": (
        "<picture>" + '<img src="a.jpg">' * 3_000 + '<source type="image/webp"></picture>',
        0.2,
    ),
    # was 2.5 s, quadratic: each title walked up its 5,000 ancestors
    "title": ("<title>Page</title><svg>" + "<g>" * 5_000 + "<title>tip</title>" * 5_000, 0.5),
}


@pytest.mark.parametrize("key", CHECK_INPUTS)
def test_a_check_stays_linear_on_a_hostile_page(key: str) -> None:
    html, most = CHECK_INPUTS[key]
    context = Context(site(html))
    started = time.perf_counter()
    CHECKS[key].run(context)
    seconds = time.perf_counter() - started
    print(f"{key}: {seconds * 1000:.1f} ms (at most {most * 1000:g})")
    assert seconds < most


PAGES = {
    "1,250,000 elements": "<body>" + "<br>" * 1_250_000,
    "a whole page in an unclosed <title>": "<title>" + "word " * 1_000_000,
    "a whole page in an unclosed <h1>": "<body><h1>" + "word " * 1_000_000,
    "1,250,000 nested <b>": "<body>" + "<b>" * 1_250_000,
    "5 MB of one word without an @": "<body>" + "a" * 5_000_000 + " @",
}


@pytest.mark.parametrize("name", PAGES)
def test_a_pathological_page_of_5_mb_is_analysed_in_time(name: str) -> None:
    started = time.monotonic()
    report = analyse(site(PAGES[name]))
    seconds = time.monotonic() - started
    print(f"{name}: {seconds:.2f} s (at most {ANALYSIS_SECONDS:g})")
    assert seconds < ANALYSIS_SECONDS, name
    assert not any("unfinished" in (entry["errors"] or {}) for entry in report.results.values())
