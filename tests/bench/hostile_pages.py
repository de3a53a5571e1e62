"""Analysis times of hostile 5 MB pages (docs/seo.md, "Bounds of a report"): each page
once, in a fresh child process as the report functions analyse it, with the deployed
budget.

    PYTHONPATH=layers/common .venv/bin/python -m tests.bench.hostile_pages [name ...]
"""

from __future__ import annotations

import json
import sys
import time

from sitelens.seo.analysis import ANALYSIS_SECONDS, analyse
from sitelens.seo.page import Response, Site
from tests.bench import pages

SIZE = 5 * 1024 * 1024  # the fetcher's cap


def filled(unit: str, prefix: str = "<html><body>", suffix: str = "") -> str:
    """`prefix`, `unit` repeated, `suffix`: at most `SIZE` bytes of ASCII."""
    return prefix + unit * ((SIZE - len(prefix) - len(suffix)) // len(unit)) + suffix


HOSTILE = {
    "realistic page (tests/bench/pages.py)": lambda: pages.site(SIZE, seed=3).page.body.decode(),
    "100,000 nested <div> (500 KB)": lambda: "<html><body>" + "<div>" * 100_000,
    "1,000,000 nested <div>": lambda: filled("<div>"),
    "<select> of 300,000 options": lambda: filled("<option>x</option>", "<select>"),
    "one element with 650,000 attributes": lambda: (
        "<html><body><div " + " ".join(f"a{n}" for n in range(650_000)) + ">"
    ),
    "450,000 elements with distinct attributes": lambda: (
        "<html><body>" + "".join(f"<i a{n}>" for n in range(450_000))
    ),
    "1,300,000 <br>": lambda: filled("<br>"),
    "1,700,000 <p>": lambda: filled("<p>"),
    "1,700,000 nested <b>": lambda: filled("<b>"),
    "290,000 <img> without alt": lambda: filled('<img src="/a.jpg">'),
    "130,000 'click here' javascript: links": lambda: filled(
        '<a href="javascript:x">click here</a>'
    ),
    "unclosed <title>": lambda: filled("word ", "<html><head><title>"),
    "unclosed <h1>": lambda: filled("word ", "<html><body><h1>"),
    "one 5-million-letter word, then ' @'": lambda: filled("a", "<html><body>", " @"),
}


def site(html: str) -> Site:
    page = Response(
        url="https://acme.example/page",
        status=200,
        headers={"content-type": "text/html; charset=utf-8"},
        body=html.encode(),
        elapsed=0.3,
        content_encoding="br",
    )
    return Site(page=page, robots_txt=None, missing_page_status=404)


def main(names: list[str]) -> None:
    print(f"{'5 MB page':45}  {'seconds':>7}  {'results bytes':>13}  unfinished checks")
    for name, build in HOSTILE.items():
        if names and name not in names:
            continue
        analysed = site(build())
        started = time.perf_counter()
        report = analyse(analysed)
        seconds = time.perf_counter() - started
        size = len(json.dumps(report.results, separators=(",", ":")))
        unfinished = sum(
            "unfinished" in (entry["errors"] or {}) for entry in report.results.values()
        )
        print(f"{name:45}  {seconds:7.2f}  {size:13,}  {unfinished}", flush=True)
    print(f"(budget: {ANALYSIS_SECONDS:g} s; unfinished: the child process was stopped)")


if __name__ == "__main__":
    main(sys.argv[1:])
