"""The Python client against make serve: sync and async, lists across pages, an error, and
(marked slow) the built wheel installed into a clean virtual environment."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from sitelens_client import AsyncSitelens, NotFound, Sitelens, ValidationError
from tests.e2e.conftest import SharedServe
from tests.e2e.test_local_server import ROOT


@pytest.fixture(scope="module")
def sitelens(shared_serve: SharedServe):
    account = shared_serve.take()
    server = shared_serve.server
    with Sitelens(account.key, analytics_url=server.analytics, seo_url=server.seo) as client:
        yield client


def test_websites_are_created_listed_across_pages_and_deleted(sitelens: Sitelens) -> None:
    tag = uuid.uuid4().hex[:8]
    made = [sitelens.websites.create(domain=f"c{n}-{tag}.example.net") for n in range(12)]
    assert made[0].domain == f"c0-{tag}.example.net" and made[0].id > 0
    pages = list(sitelens.websites.list(search=tag, per_page=10).pages())
    assert [len(page.items) for page in pages] == [10, 2]
    listed = [site.domain for site in sitelens.websites.list(search=tag, per_page=10)]
    assert sorted(listed) == sorted(site.domain for site in made)
    assert sitelens.websites.update(made[0].id, favorite=1).favorite is True
    assert sitelens.websites.delete(made[0].id)["deleted"] is True
    with pytest.raises(NotFound) as missing:
        sitelens.websites.get(made[0].id)
    assert missing.value.status == 404 and isinstance(missing.value.message, str)


def test_a_bad_create_is_a_validation_error_with_the_fields(sitelens: Sitelens) -> None:
    with pytest.raises(ValidationError) as invalid:
        sitelens.websites.create(domain="not a domain")
    assert "domain" in invalid.value.errors


def test_goals_annotations_keys_and_a_query(sitelens: Sitelens) -> None:
    site = sitelens.websites.create(domain=f"q-{uuid.uuid4().hex[:8]}.example.net")
    goal = sitelens.goals(site.id).create(goal_type="event", event_name="Signup")
    assert [g.id for g in sitelens.goals(site.id).list()] == [goal.id]
    note = sitelens.annotations(site.id).create(date="2026-11-01", text="Deploy")
    assert note.text == "Deploy"
    answer = sitelens.query(site_id=site.id, metrics=["visitors"], date_range="30d")
    assert answer.results[0].metrics == [0]
    assert sitelens.realtime(site.id).visitors == 0
    used = sitelens.usage()
    assert used.account.websites >= 1 and used.total.websites == used.account.websites
    key = sitelens.keys.create(name="ci", scopes={"analytics": "read"})
    assert key.key.startswith("sl_") and sitelens.keys.get(key.id).name == "ci"
    sitelens.keys.revoke(key.id)


def test_the_async_client_lists_and_fails_alike(shared_serve: SharedServe) -> None:
    account = shared_serve.take()
    server = shared_serve.server

    async def main() -> tuple[list[str], int]:
        async with AsyncSitelens(
            account.key, analytics_url=server.analytics, seo_url=server.seo
        ) as client:
            tag = uuid.uuid4().hex[:8]
            for n in range(11):
                await client.websites.create(domain=f"a{n}-{tag}.example.net")
            domains = [s.domain async for s in client.websites.list(search=tag, per_page=10)]
            try:
                await client.websites.get(999999)
            except NotFound as error:
                return domains, error.status
            return domains, 0

    domains, status = asyncio.run(main())
    assert len(domains) == 11 and status == 404


@pytest.mark.slow
def test_the_wheel_installed_in_a_clean_venv_calls_make_serve(
    shared_serve: SharedServe, tmp_path: Path
) -> None:
    subprocess.run(["make", "-s", "client", f"PYTHON={sys.executable}"], cwd=ROOT, check=True)
    [wheel] = (ROOT / "clients/python/dist").glob("sitelens_client-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    python = venv / "bin/python"
    subprocess.run([python, "-m", "pip", "install", "--quiet", wheel], check=True)
    account = shared_serve.take()
    script = (
        "import sys, sitelens_client as s\n"
        "c = s.Sitelens(sys.argv[1], analytics_url=sys.argv[2])\n"
        "site = c.websites.create(domain=sys.argv[3])\n"
        "print(s.__file__, [w.domain for w in c.websites.list()])\n"
    )
    domain = f"w-{uuid.uuid4().hex[:8]}.example.net"
    done = subprocess.run(
        [python, "-c", script, account.key, shared_serve.server.analytics, domain],
        capture_output=True, text=True, check=True, cwd=tmp_path,
    )  # fmt: skip
    assert str(venv) in done.stdout and domain in done.stdout


def test_an_audits_runs_issues_and_diff(sitelens: Sitelens, page_site: str) -> None:
    audit = sitelens.audits.create(url=f"http://{page_site}/", max_pages=5)
    finished = _finished(sitelens, audit.id)
    assert finished.run == 1 and finished.score is not None
    issues = sitelens.audits.issues(audit.id)
    assert all(issue.code and issue.severity in ("high", "medium", "low") for issue in issues)
    assert sitelens.audits.diff(audit.id) is None  # a first run has nothing to compare
    assert sitelens.audits.start_run(audit.id).run == 2
    _finished(sitelens, audit.id)
    assert [run.run for run in sitelens.audits.runs(audit.id)] == [2, 1]
    diff = sitelens.audits.diff(audit.id)
    assert diff is not None and diff.new == [] and diff.pages_added == 0 and diff.score_delta == 0


def _finished(sitelens: Sitelens, audit_id: int):
    deadline = time.monotonic() + 30
    while (audit := sitelens.audits.get(audit_id)).status not in ("done", "failed"):
        assert time.monotonic() < deadline, audit
        time.sleep(0.2)
    assert audit.status == "done", audit.failure
    return audit
