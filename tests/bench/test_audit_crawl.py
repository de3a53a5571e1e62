"""Site audits under `make serve`: the generated site (tests/bench/audit_site.py) served
locally and crawled by the server's own worker (its embedded SQS, DynamoDB Local), as a
client would start it (POST /api/v1/audits, then GET until done). Measured: pages crawled
and analysed per second (start to done), the peak memory of the server process (the
worker runs in it) and of DynamoDB Local, and the precision and recall of every
cross-page check against the generator's known answers.

Sized so that each of its two runs takes about 35 s on 2 cores (2,000 pages, past
the 1,000 where run diffs once went wrong; BENCH_AUDIT_PAGES changes it, up to the
generator's 20,000), 300 pages in quick mode."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from typing import Any

from sitelens.audits import checks
from sitelens.core import clock
from tests.bench import report, timing
from tests.bench.audit_site import GeneratedSite
from tests.e2e.test_local_server import call, start_server

PAGES = 300 if timing.QUICK else int(os.environ.get("BENCH_AUDIT_PAGES", "2000"))
GROUPS = 3 if timing.QUICK else 20  # each plants one of every defect
KEY = "sl_bench_audit_" + uuid.uuid4().hex
DEADLINE_S = 600


def peak_mib(pid: int) -> float:
    """A process's peak resident memory (VmHWM), MiB; 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def children(pid: int) -> list[int]:
    try:
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [int(child) for child in found]


def scores(expected: dict[str, set[str]], issues: dict[str, Any], base: str) -> dict[str, Any]:
    """Per check: true and false positives, misses, precision and recall (1.0 when there
    was nothing to find or nothing found)."""
    found = {}
    for check, paths in expected.items():
        listed = {p["url"].removeprefix(base) for p in issues.get(check, {"pages": []})["pages"]}
        hits = len(listed & paths)
        found[check] = {
            "true": hits,
            "false": len(listed - paths),
            "missed": len(paths - listed),
            "precision": hits / len(listed) if listed else 1.0,
            "recall": hits / len(paths) if paths else 1.0,
        }
    return found


def latest_seconds(run: dict[str, Any]) -> float:
    """A finished run's seconds from start to finish, as it recorded them."""
    started, finished = (clock.moment(run[k]) for k in ("started_at", "finished_at"))
    assert started is not None and finished is not None, run
    return max((finished - started).total_seconds(), 0.001)


def wait(path: str, started: float) -> dict[str, Any]:
    """The audit once its run has ended."""
    while True:
        audit: dict[str, Any] = call("GET", path, KEY).body["data"]
        if audit["status"] not in ("queued", "crawling", "analysing"):
            return audit
        assert time.monotonic() - started < DEADLINE_S, audit
        time.sleep(0.5)


def diff_scores(recorded: dict[str, dict[str, int]], run: dict[str, Any]) -> dict[str, Any]:
    """The second run's diff against the recorded history of changes: for every cross-page
    check, each count (pages, new, added, fixed, removed) as recorded (0 where nothing was
    changed), pages added and removed, and the regression verdict. Precision and recall
    over the pages the history moved: the moves reported that were recorded, and the
    recorded moves reported."""
    diff = run["diff"]
    reported = {i["code"]: i for kind in ("new", "fixed", "removed", "persisting")
                for i in diff.get(kind, [])}  # fmt: skip
    fields = ("new_pages", "added_pages", "fixed_pages", "removed_pages")
    wrong: dict[str, Any] = {}
    hits = got = wanted = 0
    for code in checks.DEFINITIONS:
        expected = recorded.get(code, dict.fromkeys(fields, 0))
        found = {f: reported.get(code, {}).get(f, 0) for f in fields}
        hits += sum(min(expected[f], found[f]) for f in fields)
        got += sum(found.values())
        wanted += sum(expected[f] for f in fields)
        if any(expected[f] != found[f] for f in fields):
            wrong[code] = {"recorded": expected, "reported": found}
    site = recorded["_site"]
    for name in ("pages_added", "pages_removed"):
        if diff[name] != site[name]:
            wrong[name] = {"recorded": site[name], "reported": diff[name]}
    if run["regression"] != bool(site["regression"]):
        wrong["regression"] = {"recorded": bool(site["regression"]), "reported": run["regression"]}
    return {
        "precision": hits / got if got else 1.0,
        "recall": hits / wanted if wanted else 1.0,
        "exact": not wrong,
        "wrong": wrong,
        "regression": run["regression"],
        "regression_reasons": run.get("regression_reasons", []),
    }


def test_audit_crawl() -> None:
    site = GeneratedSite(PAGES, GROUPS, content=False)  # its checks: their own bench
    server = start_server(
        SITELENS_DEV_API_KEY=KEY,
        SITELENS_ALLOW_PRIVATE_URLS="1",  # the site is on 127.0.0.1,
        SITELENS_FETCH_PORTS=str(site.port),  # on a port of its own
        POWERTOOLS_LOG_LEVEL="WARNING",
    )
    try:
        form = {"url": site.url("/"), "max_pages": str(PAGES + 100)}
        started = time.monotonic()
        created = call("POST", f"{server.seo}/api/v1/audits", KEY, form=form)
        assert created.status == 201, created.body
        path = f"{server.seo}/api/v1/audits/{created.body['data']['id']}"
        audit = wait(path, started)
        seconds = time.monotonic() - started
        assert audit["status"] == "done", audit
        issues = {i["code"]: i for i in call("GET", f"{path}/issues", KEY).body["data"]}
        pid = server.process.pid
        memory = {
            "server_mib": round(peak_mib(pid), 1),
            "children_mib": round(sum(peak_mib(child) for child in children(pid)), 1),
        }
        recorded = site.change()
        again = call("POST", f"{path}/runs", KEY)
        assert again.status == 201, again.body
        second = wait(path, time.monotonic())
        assert second["status"] == "done", second
        latest = call("GET", f"{path}/runs", KEY).body["data"][0]
    finally:
        server.stop()
        site.close()
    checked = scores(site.expected, issues, site.base)
    history = diff_scores(recorded, latest)
    fetched = audit["progress"]["fetched"]
    report.RESULTS["audit_crawl"] = {
        "pages": fetched,
        "seconds": round(seconds, 1),
        "pages_per_s": round(fetched / seconds, 1),
        **memory,
        "precision_min": min(c["precision"] for c in checked.values()),
        "recall_min": min(c["recall"] for c in checked.values()),
        "checks": checked,
        "history": history,
        "second_run_pages_per_s": round(
            second["progress"]["fetched"] / (latest_seconds(latest)), 1
        ),
    }
    report.CONTEXT["audit_crawl"] = {
        "site": f"tests/bench/audit_site.py: {len(site.pages)} pages, {GROUPS} groups of "
        "planted defects, the rest filler under hubs of 100",
        "server": "make serve (sitelens.local.server): the audit worker in process, "
        "SITELENS_AUDIT_RATE 200/s and concurrency 16 (its defaults), DynamoDB Local",
        "site_requests": site.fetches,
    }
