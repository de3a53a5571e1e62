"""audit.completed for every finished audit run, and audit.regressed as well for a run
that regressed, to the endpoints reaching the project of the audit's URL (signed, through
the queue's function); endpoints of another project hear nothing."""

from __future__ import annotations

import json

from standardwebhooks import Webhook

from sitelens.audits import analysis
from sitelens.data import audits as stored_audits
from tests.integration.audits.site import page
from tests.integration.audits.test_audits import audit, audit_site, crawlable, drain
from tests.integration.webhooks.test_webhooks import deliver_queued, make

__all__ = ["audit_site", "crawlable"]  # the fixtures, used by name
EVENTS = "audit.completed,audit.regressed"


def test_finished_runs_and_regressions_reach_the_audits_project(
    analytics, seo, audit_site, crawlable, receivers
):
    reaching, elsewhere = receivers
    endpoint = make(analytics, reaching.url(), events=EVENTS, projects="127.0.0.1")
    make(analytics, elsewhere.url(), events=EVENTS, projects="elsewhere.example")
    created = audit(seo, audit_site)
    drain()
    deliver_queued()
    [first] = reaching.received
    payload = Webhook(endpoint["secret"]).verify(first.body, first.headers)
    assert payload["type"] == "audit.completed"
    run = seo.get(f"/api/v1/audits/{created['id']}/runs").data[0]
    assert payload["data"]["id"] == created["id"] and payload["data"]["url"] == created["url"]
    assert payload["data"]["run"] == 1 and payload["data"]["score"] == run["score"]
    assert payload["data"]["regression"] is False and payload["data"]["diff"] is None

    html = {"Content-Type": "text/html; charset=utf-8"}
    saved = dict(audit_site.pages)
    try:  # /a now links to a missing page: new pages with a high-severity issue
        audit_site.pages["/a"] = (200, html, page("Page A", ["/", "/deep1", "/missing"]))
        assert seo.post(f"/api/v1/audits/{created['id']}/runs").status == 201
        drain()
    finally:
        audit_site.pages = saved
    deliver_queued()
    sent = [json.loads(r.body) for r in reaching.received[1:]]
    assert [p["type"] for p in sent] == ["audit.completed", "audit.regressed"]
    assert all(p["data"]["run"] == 2 and p["data"]["regression"] is True for p in sent)
    assert elsewhere.received == []


def test_a_worker_killed_once_the_run_is_done_is_finished_by_the_step_s_next_delivery(
    analytics, seo, account, audit_site, crawlable, receivers, monkeypatch
):
    """Killed between the run's done state and its audit's record: the step comes again,
    records the run and announces it once; a further delivery announces nothing more."""
    reaching, _ = receivers
    make(analytics, reaching.url(), events=EVENTS, projects="127.0.0.1")
    record_run, attempts = analysis._record_run, []

    def killed_the_first_time(state, summary):
        attempts.append(state["run"])
        if len(attempts) == 1:
            raise RuntimeError("the worker was killed")
        record_run(state, summary)

    monkeypatch.setattr(analysis, "_record_run", killed_the_first_time)
    created = audit(seo, audit_site)
    drain(redeliver=True)
    assert attempts == [1, 1]
    record = stored_audits.get(account.id, created["id"])
    [kept] = json.loads(record["runs"])
    assert kept["run"] == 1 and kept["status"] == "done" and isinstance(kept["score"], int)
    analysis.analyse(stored_audits.crawl_key(account.id, created["id"], 1))  # once more
    assert json.loads(stored_audits.get(account.id, created["id"])["runs"]) == [kept]
    deliver_queued()
    assert [json.loads(r.body)["type"] for r in reaching.received] == ["audit.completed"]
