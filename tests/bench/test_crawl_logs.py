"""Access-log lines read and stored a second (`analytics.crawls.uploads.store`): a
generated combined log of 200,000 lines (an upload's most), two thirds crawlers (Googlebot
from 50 addresses, verified by a fake resolver answering at once; GPTBot by the shipped
ranges; SEO tools), a third people, parsed, named, verified and written as Parquet into a
local warehouse folder. The DNS look-ups' own time (the network's) is not in it."""

from __future__ import annotations

import gzip
import random
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sitelens.analytics.crawls import uploads, verification
from sitelens.data import warehouse
from sitelens.local.warehouse import LocalWarehouse
from tests.bench import report

LINES = 100_000  # half an upload's most (uploads.MAX_LINES): the run stays under 15 s
AGENTS = [
    ("66.249.66.{n}", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"),
    ("20.171.206.{n}", "Mozilla/5.0 (KHTML, like Gecko; compatible; GPTBot/1.2)"),
    ("198.51.100.{n}", "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)"),
    ("203.0.113.{n}", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
     "Chrome/131.0.0.0 Safari/537.36"),
    ("192.0.2.{n}", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
     "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"),
    ("198.51.100.{n}", "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)"),
]  # fmt: skip


class InstantDns:
    def reverse(self, ip: str) -> list[str]:
        return [f"crawl-{ip.replace('.', '-')}.googlebot.com"]

    def forward(self, name: str) -> list[str]:
        return [name.removeprefix("crawl-").split(".")[0].replace("-", ".")]


def generate(lines: int) -> bytes:
    chooser = random.Random(46)
    start = datetime(2026, 11, 27, tzinfo=UTC)
    out = []
    for n in range(lines):
        address, agent = AGENTS[n % len(AGENTS)]
        at = (start + timedelta(seconds=n // 3)).strftime("%d/%b/%Y:%H:%M:%S +0000")
        page = f"/docs/{chooser.randrange(2_000)}"
        ip = address.format(n=n % 50 + 1)
        out.append(f'{ip} - - [{at}] "GET {page} HTTP/1.1" 200 5120 "-" "{agent}"')
    return gzip.compress("\n".join(out).encode())  # as a client sends a log this long


def test_crawl_log_lines_a_second(tmp_path: Path) -> None:
    body = generate(LINES)
    local = LocalWarehouse(tmp_path / "warehouse")
    warehouse.use(
        warehouse.LocalEngine("duckdb", local.run, local.write, root=local.root, place=local.place)
    )
    verification.use(InstantDns())
    try:
        started = time.perf_counter()
        tally = uploads.store(1, "example.com", body)
        seconds = time.perf_counter() - started
        stored = local.run("SELECT COUNT(DISTINCT line_id) FROM crawls")[0][0]
    finally:
        verification.use(None)
        warehouse.use(None)
        local.close()
    assert tally["lines"] == LINES
    assert stored == tally["crawls"] == sum(n % 6 in (0, 1, 2, 5) for n in range(LINES))
    assert seconds < 15
    report.RESULTS["crawl_logs"] = {
        "lines": LINES,
        "crawls": stored,
        "seconds": round(seconds, 2),
        "lines_per_s": round(LINES / seconds),
        "mib_sent_gzip": round(len(body) / 1024**2, 1),
    }
    report.CONTEXT["crawl_logs"] = {
        "log": "combined, gzip, 100,000 lines, 2/3 crawlers, 1/3 people",
        "path": "uploads.store: parse, name, verify (fake DNS, shipped ranges), Parquet",
    }
