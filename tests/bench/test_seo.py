"""SEO analysis: `sitelens.seo.analysis.analyse` (Lexbor, one parse, every check of
`CHECKS`) against the same checks on BeautifulSoup's html.parser, on generated pages of
50 KB, 300 KB and 1 MB. The network is left out: the `Site` is built in memory.

Both are timed in a process of their own, the size of a Lambda container's: `analyse` sends
a page over 64 KiB to a worker process it forks once and keeps (the medians are a warm
container's; the first large page's time, fork included, is in the context), and a fork
costs more the more memory its parent has: in the bench's process (1.6 GB by the time this
runs) 60 ms more than in a process of 150 MB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from tests.bench import pages, report, timing
from tests.bench.peers import seo_baseline

SIZES = {"50kb": 50_000} if timing.QUICK else {"50kb": 50_000, "300kb": 300_000, "1mb": 1_000_000}


def measure() -> dict[str, object]:
    """The medians and the context, measured in this process (run as a child by the test)."""
    from sitelens.seo.analysis import IN_PROCESS_BYTES, analyse
    from sitelens.seo.checks import CHECKS

    sites = {name: pages.site(size, seed=index) for index, (name, size) in enumerate(SIZES.items())}
    agreement = {}
    first_large_page_ms = None  # with the worker's fork, as a container's first large page
    for name, site in sites.items():
        started = time.perf_counter()
        ours = analyse(site).results
        if first_large_page_ms is None and len(site.page.body) > IN_PROCESS_BYTES:
            first_large_page_ms = {name: round((time.perf_counter() - started) * 1000, 1)}
        theirs = seo_baseline.analyse(site)
        assert set(theirs) == set(CHECKS)  # the baseline runs the same check list
        agreement[name] = [key for key in CHECKS if ours[key]["passed"] != theirs[key]["passed"]]
    subjects = {}
    for name, site in sites.items():
        subjects[f"sitelens_{name}"] = timing.ms(lambda site=site: analyse(site))
        subjects[f"baseline_{name}"] = timing.ms(lambda site=site: seo_baseline.analyse(site))
    with timing.own_garbage_only():
        medians = timing.interleaved(subjects)
    return {
        "seo_ms": {
            f"{who}_{name}": round(medians[f"{who}_{name}"], 2)
            for name in SIZES
            for who in ("sitelens", "baseline")
        },
        "context": {
            "page_bytes": {name: len(site.page.body) for name, site in sites.items()},
            "first_large_page_ms": first_large_page_ms,
            "checks": len(CHECKS),
            "verdicts_that_differ_from_baseline": agreement,
            "pages": "tests/bench/pages.py: head with meta/OG/JSON-LD/hreflang, article "
            "sections with product cards, images, tables, embeds, forms, inline SVG and state "
            "JSON",
            "process": "timed in a process of its own (a fork's cost grows with its parent)",
        },
    }


CHILD = "import json, tests.bench.test_seo as t; print(json.dumps(t.measure()))"


def test_seo_analysis() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD],
        cwd=report.ROOT,
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    report.RESULTS["seo_ms"] = measured["seo_ms"]
    report.CONTEXT["seo"] = measured["context"]
