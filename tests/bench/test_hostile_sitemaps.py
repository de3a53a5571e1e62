"""CPU time of parsing each hostile sitemap of tests/fixtures/hostile_sitemaps.py at the
real caps (issue 41: each under 1 s), into `report.RESULTS["hostile_sitemaps"]`; the quick
mode parses a hundredth of each."""

from __future__ import annotations

from sitelens.audits import sitemaps
from tests.bench import report, timing
from tests.fixtures.hostile_sitemaps import AFTER, HOSTILE


def test_hostile_sitemaps() -> None:
    size = sitemaps.MAX_BYTES // 100 if timing.QUICK else sitemaps.MAX_BYTES
    bodies = {name: build(size) for name, build in HOSTILE.items()}
    for name, body in bodies.items():
        assert sitemaps.parse(body) == (False, [AFTER]), name
    samplers = {
        name: timing.ms(lambda body=body: sitemaps.parse(body)) for name, body in bodies.items()
    }
    with timing.own_garbage_only():
        cpu_ms = timing.interleaved(samplers)
    report.RESULTS["hostile_sitemaps"] = {name: round(ms, 1) for name, ms in cpu_ms.items()}
    report.CONTEXT["hostile_sitemaps"] = {
        "bytes": {name: len(body) for name, body in bodies.items()},
        "decompressed_bytes": {
            name: len(sitemaps.decompressed(body)) for name, body in bodies.items()
        },
    }
