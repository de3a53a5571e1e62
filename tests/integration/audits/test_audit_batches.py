"""A crawl step that cannot save what it found fails, and comes again through its queue
(issue 41, "nothing lost"): issues DynamoDB keeps leaving unprocessed, or steps SQS keeps
failing, past every attempt of `data.batches`, fail their step, never finish it."""

from __future__ import annotations

import pytest

from sitelens.audits import crawler
from sitelens.data import clients, transactions
from tests.fixtures.clocks import SteppedClock
from tests.fixtures.refusals import Refusing, body_name, key_name, refusing
from tests.integration.audits.test_audits import (
    audit,
    audit_site,
    check_the_crawl_finds_every_planted_defect_and_nothing_else,
    crawlable,
    drain,
)

__all__ = ["audit_site", "crawlable"]  # fixtures this module uses


@pytest.fixture
def failures(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The message ids of the steps the worker failed, and no backoff waited out."""
    monkeypatch.setattr(transactions, "time", SteppedClock())
    failed: list[str] = []
    handle = crawler.handle

    def recorded(records):
        answer = handle(records)
        failed.extend(answer)
        return answer

    monkeypatch.setattr(crawler, "handle", recorded)
    return failed


def test_an_analysis_whose_issues_stay_unprocessed_comes_again_and_is_done(
    seo, audit_site, crawlable, failures
):
    created = audit(seo, audit_site)
    refusals = {"issue#broken_internal_link": transactions.MAX_ATTEMPTS}  # one whole step
    with refusing("dynamodb", Refusing(clients.client("dynamodb"), key_name, refusals)) as kept:
        drain(redeliver=True)
    assert len(failures) == 1  # the analysis, once; it returned as if all were saved
    tried = [names for names in kept.sent if "issue#broken_internal_link" in names]
    assert tried[1:-1] == [["issue#broken_internal_link"]] * (transactions.MAX_ATTEMPTS - 1)
    assert len(tried[0]) > 1 and tried[-1] == tried[0]  # the step again, its issues again
    check_the_crawl_finds_every_planted_defect_and_nothing_else(seo, audit_site, created)


def test_a_fetch_whose_links_sqs_keeps_failing_comes_again_and_queues_them(
    seo, audit_site, crawlable, failures
):
    created = audit(seo, audit_site)
    refusals = {audit_site.url("/a"): transactions.MAX_ATTEMPTS}
    with refusing("sqs", Refusing(clients.client("sqs"), body_name, refusals)) as kept:
        drain(redeliver=True)
    assert failures  # the step that found /a (and its batch's of the same crawl)
    assert (
        sum(names.count(audit_site.url("/a")) for names in kept.sent)
        > refusals[audit_site.url("/a")]
    )  # queued, in the end, by the step that came again
    check_the_crawl_finds_every_planted_defect_and_nothing_else(seo, audit_site, created)
