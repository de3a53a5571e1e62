"""Reports people can act on (issue 23, part 7): each failed check carries a one-line fix
and a link to the standard it applies, in the API and on the share page, where failures
come first by importance and passes are folded."""

from __future__ import annotations

import re

from sitelens.seo.checks import CHECKS, FIELD_CHECKS
from sitelens.seo.guidance import ADVICE, FIELD_ADVICE
from tests.integration.share.test_report_links import (
    create,
    generous_limit,
    owner,
    public,
    share_id,
)

__all__ = ["generous_limit", "owner", "public"]  # fixtures this module uses
IMPORTANCE = ("high", "medium", "low")


def test_every_check_has_a_fix_and_a_link_to_its_standard():
    assert set(ADVICE) == set(CHECKS) | set(FIELD_CHECKS)
    for key, advice in [*ADVICE.items(), *FIELD_ADVICE.items()]:
        assert advice.fix.endswith(".") and len(advice.fix) <= 100, key
        assert re.fullmatch(r"https://[a-z0-9.-]+/\S*", advice.learn_more), key


def test_failed_checks_carry_their_fix_in_the_api(owner, site):
    report = create(owner, site, url=site.url("/poor"))
    failed = {k: r for k, r in report["results"].items() if not r["passed"]}
    assert failed  # the poor page fails checks of every importance
    for key, result in report["results"].items():
        if result["passed"]:
            assert "fix" not in result and "learn_more" not in result, key
        else:
            assert (result["fix"], result["learn_more"]) == ADVICE[key][:2], key
    assert owner.get(f"/api/v1/reports/{report['id']}").data["results"] == report["results"]


def test_the_page_lists_failures_first_by_importance_with_passes_folded(owner, public, site):
    report = create(owner, site, url=site.url("/poor"))
    page = public.get(f"/share/reports/{share_id(report)}").body
    failures, _, passes = page.partition('<details id="passes">')
    shown = re.findall(r'<li class="check failed" id="check-([^"]+)"', failures)
    failed = [k for k, r in report["results"].items() if not r["passed"]]
    assert sorted(shown) == sorted(failed)
    ranks = [IMPORTANCE.index(report["results"][key]["importance"]) for key in shown]
    assert ranks == sorted(ranks)
    assert 'class="check passed"' not in failures and 'class="check failed"' not in passes
    passed = [k for k, r in report["results"].items() if r["passed"]]
    assert re.findall(r'<li class="check passed" id="check-([^"]+)"', passes) == passed
    first = shown[0]
    assert f'href="{report["results"][first]["learn_more"]}"' in failures
