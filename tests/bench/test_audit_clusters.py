"""Near-duplicate clusters under `make serve` (issue 45): the generated site
(tests/bench/audit_site.py) with planted clusters (an original and its copies, each a word
longer, within the default threshold by construction) beside filler pages of text of their
own, crawled by the server's worker as a client starts it. Measured: the precision and
recall of the reported clusters against the generator's, over (original, copy) pairs, and
whether each cluster's original is the planted one."""

from __future__ import annotations

import time
import uuid
from typing import Any

from tests.bench import report, timing
from tests.bench.audit_site import GeneratedSite
from tests.bench.test_audit_crawl import DEADLINE_S
from tests.e2e.test_local_server import call, start_server

CLUSTERS = 5 if timing.QUICK else 30
PAGES = 200 if timing.QUICK else 600
KEY = "sl_bench_clusters_" + uuid.uuid4().hex


def cluster_scores(
    expected: dict[str, set[str]], clusters: list[dict[str, Any]], base: str
) -> dict[str, Any]:
    """Precision and recall over (original, copy) pairs, and the originals told right."""
    wanted = {(original, copy) for original, copies in expected.items() for copy in copies}
    found = {
        (c["original"].removeprefix(base), p["url"].removeprefix(base))
        for c in clusters
        for p in c["pages"]
    }
    hits = len(wanted & found)
    originals = {c["original"].removeprefix(base) for c in clusters}
    return {
        "clusters_planted": len(expected),
        "clusters_reported": len(clusters),
        "true": hits,
        "false": len(found - wanted),
        "missed": len(wanted - found),
        "precision": hits / len(found) if found else 1.0,
        "recall": hits / len(wanted) if wanted else 1.0,
        "originals_right": len(originals & set(expected)) / len(expected) if expected else 1.0,
    }


def test_audit_clusters() -> None:
    site = GeneratedSite(PAGES, groups=0, clusters=CLUSTERS)
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
        while True:
            audit = call("GET", path, KEY).body["data"]
            if audit["status"] not in ("queued", "crawling", "analysing"):
                break
            assert time.monotonic() - started < DEADLINE_S, audit
            time.sleep(0.5)
        assert audit["status"] == "done", audit
        issues = {i["code"]: i for i in call("GET", f"{path}/issues", KEY).body["data"]}
    finally:
        server.stop()
        site.close()
    clusters = issues.get("near_duplicate_content", {}).get("clusters", [])
    scores = cluster_scores(site.clusters, clusters, site.base)
    report.RESULTS["audit_clusters"] = {"pages": audit["progress"]["fetched"], **scores}
    report.CONTEXT["audit_clusters"] = {
        "site": f"tests/bench/audit_site.py: {len(site.pages)} pages, {CLUSTERS} clusters of "
        "an original and 2 copies (a word added, at most 2 simhash bits away), the rest "
        "filler of text of its own",
        "threshold": "near_duplicate_similarity 95 (the default)",
    }
    assert scores["precision"] == 1.0 and scores["recall"] == 1.0, scores
    assert scores["originals_right"] == 1.0, scores
