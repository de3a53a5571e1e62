"""The rules of an audit's settings (`audits.rules`) and of the issue codes it names
(`audits.codes`), and that they agree with what reads them: the crawler's fetcher, the
cross-page and report checks, the analysis's grades and the regression defaults."""

from __future__ import annotations

import pytest

from sitelens.audits import analysis, codes, fetching, history, rules
from sitelens.audits.checks import DEFINITIONS
from sitelens.core.errors import FieldError
from sitelens.seo.checks import CHECKS


def test_the_known_codes_are_the_cross_page_and_the_report_checks():
    assert codes.known() == set(DEFINITIONS) | {f"page_{key}" for key in CHECKS}
    assert {"too_many_links", "dead_end", "page_title"} <= codes.known()


@pytest.mark.parametrize("bad", ["", "dead end", "DEAD_END", "page_", "page_dead_end", None, 3])
def test_an_unknown_code_is_refused_naming_the_field(bad):
    with pytest.raises(FieldError, match="The muted field must be an issue code"):
        codes.check(bad, "muted")


def test_a_known_code_is_trimmed():
    assert codes.check(" dead_end ") == "dead_end"


def test_the_settings_agree_with_the_crawler_s_fetcher():
    assert rules.DEFAULT_USER_AGENT in fetching.USER_AGENTS
    for name in fetching.USER_AGENTS:
        assert rules.check_user_agent(name) == name
    assert rules.RESERVED_HEADERS >= fetching.RESERVED_HEADERS
    assert rules.MAX_HEADERS == fetching.MAX_HEADERS


def test_grades_are_muted_or_a_severity_the_analysis_weighs():
    assert (analysis.MUTED, *analysis.WEIGHTS) == rules.GRADES


def test_regression_defaults_are_the_analysis_s():
    assert rules.check_regression({}) == history.DEFAULT_REGRESSION
    assert rules.check_regression("") == history.DEFAULT_REGRESSION
    assert rules.check_regression('{"ignore": ["dead_end", "dead_end", "orphan_page"]}') == {
        **history.DEFAULT_REGRESSION,
        "ignore": ["dead_end", "orphan_page"],
    }


@pytest.mark.parametrize(
    ("given", "headers"),
    [
        ({"X-A": " 1 "}, {"X-A": "1"}),
        ("X-A: 1\r\nX-B: two: parts\n\n", {"X-A": "1", "X-B": "two: parts"}),
        (["X-A: 1"], {"X-A": "1"}),
        ('{"X-A": "1"}', {"X-A": "1"}),
        ("", {}),
        ({}, {}),
    ],
)
def test_headers_as_a_form_or_json_sends_them(given, headers):
    assert rules.check_headers(given) == headers


@pytest.mark.parametrize(
    "given",
    [
        {"X-A\n": "1"},
        {"": "1"},
        {"X A": "1"},
        {"X-A": "1\n"},
        {"X-A": "é"},
        {"X-A": 1},
        {"x-a": "1", "X-A": "2"},
        {"Proxy-Authorization": "x"},
        {"Transfer-Encoding": "chunked"},
        {"User-Agent": "me"},
        "{not json",
        42,
    ],
)
def test_headers_refused(given):
    with pytest.raises(FieldError):
        rules.check_headers(given)


def test_a_refused_header_value_is_not_repeated():
    with pytest.raises(FieldError) as refused:
        rules.check_headers({"X-Token": "s3cret-value\r\n"})
    assert "s3cret-value" not in str(refused.value) and "X-Token" in str(refused.value)


@pytest.mark.parametrize("value", ["ann:pw", "ann:pw:with:colons", "a:"])
def test_basic_auth(value):
    assert rules.check_basic_auth(value) == value


@pytest.mark.parametrize("value", ["ann", ":pw", "ann:p\tw", "ann:pw\n", "a:" + "x" * 511])
def test_basic_auth_refused_without_repeating_it(value):
    with pytest.raises(FieldError) as refused:
        rules.check_basic_auth(value)
    assert value not in str(refused.value)


@pytest.mark.parametrize(
    ("line", "ok"),
    [
        ("https://example.com/a", True),
        ("HTTP://Example.com/a?b=1", True),
        ("/a", False),
        ("example.com/a", False),
        ("mailto:a@example.com", False),
        ("https://user:pw@example.com/", False),
    ],
)
def test_list_urls_lines(line, ok):
    assert (rules.list_url_problem(line) is None) is ok


@pytest.mark.parametrize(("value", "rate"), [(0, 0.0), ("0.1", 0.1), (20, 20.0), ("2.5", 2.5)])
def test_max_rate(value, rate):
    assert rules.check_max_rate(value) == rate


@pytest.mark.parametrize("value", [0.09, 20.5, -1, "nan", "inf", True, None, "1 page"])
def test_max_rate_refused(value):
    with pytest.raises(FieldError, match=r"from 0\.1 to 20"):
        rules.check_max_rate(value)


def test_muted_is_sorted_and_checked():
    assert rules.check_muted({"page_title": "low", "dead_end": "muted"}) == {
        "dead_end": "muted",
        "page_title": "low",
    }
    with pytest.raises(FieldError, match="must be one of: muted, high, medium, low"):
        rules.check_muted({"dead_end": "off"})
