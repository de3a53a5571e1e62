"""What the CI gate writes of a verdict: the summary it prints (text, or Markdown for a pull
request's comment), JUnit XML (one testcase per check and per rule) and SARIF 2.1.0 (one
result per page of each check), so CI systems show the issues inline (docs/ci-gate.md)."""

from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as ET
from typing import Any
from urllib.parse import urlsplit

from sitelens_client.gate import Verdict
from sitelens_client.version import VERSION

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_URI = "https://github.com/sitelens/sitelens/blob/main/docs/ci-gate.md"
PAGES_SHOWN = 10  # pages of a check the summary names; the reports list every page


def link(verdict: Verdict, seo_base: str) -> str:
    """The run's page to read: its share page, else the audit's API address."""
    return verdict.audit.share_url or f"{seo_base.rstrip('/')}/api/v1/audits/{verdict.audit.id}"


def summary(verdict: Verdict, seo_base: str, *, markdown: bool = False) -> str:
    """The short summary: score and change, regression, issues by severity, the link, the
    verdict and the failing checks with their first pages."""
    run, audit = verdict.run, verdict.audit
    diff = run.diff
    delta = f" ({diff.score_delta:+d})" if diff and diff.score_delta is not None else ""
    counts = {"high": 0, "medium": 0, "low": 0}
    for issue in verdict.shown():
        counts[issue.severity] = counts.get(issue.severity, 0) + 1
    bold = "**" if markdown else ""
    lines = [
        f"{bold}Sitelens audit {audit.id}, run {run.run}{bold} of {audit.url}: "
        f"score {run.score if run.score is not None else 'none'}{delta}, {run.pages} pages",
        "Issues by severity (checks): "
        + ", ".join(f"{count} {severity}" for severity, count in counts.items()),
    ]
    if diff is not None:
        lines.append(
            f"Since run {run.run - 1}: {len(diff.new)} new, {len(diff.fixed)} fixed, "
            f"{diff.pages_added} pages added, {diff.pages_removed} removed"
            + (f"; regression: {'; '.join(run.regression_reasons or [])}" if run.regression else "")
        )
        if markdown and (diff.new or diff.fixed):
            lines.append(f"New: {_codes(diff.new)}; fixed: {_codes(diff.fixed)}")
    lines.append(f"Report: {link(verdict, seo_base)}")
    lines.append("")
    lines.append(
        f"{bold}PASSED{bold}"
        if verdict.passed
        else f"{bold}FAILED{bold}: " + " / ".join(verdict.failures)
    )
    for issue in verdict.shown():
        if verdict.levels[issue.code] != "error" and not markdown:
            continue
        views = f", {issue.pageviews} pageviews" if issue.pageviews else ""
        mark = "x" if verdict.levels[issue.code] == "error" else "!"
        lines.append(
            f"- [{mark}] {issue.severity} {issue.code}: {issue.title} ({issue.count} pages{views})"
        )
        for page in issue.pages[:PAGES_SHOWN]:
            shown = (
                f"  - <{page.url}> {page.detail}" if markdown else f"    {page.url}  {page.detail}"
            )
            lines.append(shown.rstrip())
    return "\n".join(lines) + "\n"


def junit(verdict: Verdict) -> bytes:
    """JUnit XML: a testsuite of the rules asked (a testcase each) and one of the checks (a
    testcase per check listed, failed when the gate fails on it), each naming its pages."""
    rules = ET.Element("testsuite", name="sitelens gate")
    for rule, why in verdict.rule_results.items():
        case = ET.SubElement(rules, "testcase", classname="sitelens.gate", name=rule)
        if why:
            ET.SubElement(case, "failure", message=why, type="gate").text = why
    checks = ET.Element("testsuite", name=f"sitelens audit {verdict.audit.url}")
    properties = ET.SubElement(checks, "properties")
    for name, value in (
        ("audit", verdict.audit.id),
        ("run", verdict.run.run),
        ("score", verdict.run.score),
        ("regression", verdict.run.regression),
    ):
        ET.SubElement(properties, "property", name=name, value=str(value))
    for issue in verdict.shown():
        case = ET.SubElement(
            checks, "testcase", classname=f"sitelens.{issue.severity}", name=issue.code
        )
        pages = "\n".join(f"{page.url} {page.detail}".rstrip() for page in issue.pages)
        text = f"{issue.title} ({issue.count} pages)\n{pages}\nFix: {issue.fix}\n{issue.learn_more}"
        if verdict.levels[issue.code] == "error":
            message = f"{issue.title}: {issue.count} pages"
            ET.SubElement(case, "failure", message=message, type=issue.severity).text = text
        else:
            ET.SubElement(case, "system-out").text = text
    suites = ET.Element("testsuites", name="sitelens")
    for suite in (rules, checks):
        cases = suite.findall("testcase")
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(sum(1 for case in cases if case.find("failure") is not None)))
        suite.set("errors", "0")
        suites.append(suite)
    suites.set("tests", str(sum(int(s.get("tests", "0")) for s in suites)))
    suites.set("failures", str(sum(int(s.get("failures", "0")) for s in suites)))
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True)


def sarif(verdict: Verdict, *, paths: bool = False) -> dict[str, Any]:
    """SARIF 2.1.0: a rule per check (help: its fix and learn-more), a result per page it
    lists, located at the page's URL (`paths`: at `pages/<host>/<path>`, a relative reference,
    as GitHub code scanning refuses an https location); level `error` for a gated check,
    else by severity."""
    shown = verdict.shown()
    rules = [
        {
            "id": issue.code,
            "name": issue.code,
            "shortDescription": {"text": issue.title},
            "helpUri": issue.learn_more,
            "help": {
                "text": f"{issue.fix} {issue.learn_more}",
                "markdown": f"{issue.fix}\n\n[Learn more]({issue.learn_more})",
            },
            "defaultConfiguration": {"level": verdict.sarif_level(issue)},
            "properties": {"severity": issue.severity, "tags": ["seo", issue.severity]},
        }
        for issue in shown
    ]
    results = [
        {
            "ruleId": issue.code,
            "ruleIndex": index,
            "level": verdict.sarif_level(issue),
            "message": {"text": f"{issue.title}: {page.detail}" if page.detail else issue.title},
            "locations": [
                {"physicalLocation": {"artifactLocation": {"uri": _located(page.url, paths)}}}
            ],
            # code scanning matches alerts across runs by these (a page has no lines to hash)
            "partialFingerprints": {"sitelensPage/v1": _fingerprint(issue.code, page.url)},
            "properties": {"url": page.url},
        }
        for index, issue in enumerate(shown)
        for page in issue.pages
    ]
    run = {
        "tool": {
            "driver": {
                "name": "Sitelens",
                "version": VERSION,
                "informationUri": TOOL_URI,
                "rules": rules,
            }
        },
        "automationDetails": {"id": f"sitelens/audit-{verdict.audit.id}/"},
        "results": results,
        "properties": {
            "audit": verdict.audit.id,
            "run": verdict.run.run,
            "score": verdict.run.score,
            "regression": verdict.run.regression,
        },
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def sarif_text(verdict: Verdict, *, paths: bool = False) -> str:
    return json.dumps(sarif(verdict, paths=paths), indent=2) + "\n"


def _located(url: str, paths: bool) -> str:
    """The page's URL, or `pages/<host[:port]><path>[?query]`: no scheme, and a first segment
    without a colon, so that it reads as a relative reference."""
    if not paths:
        return url
    parts = urlsplit(url)
    return f"pages/{parts.netloc}{parts.path or '/'}" + (f"?{parts.query}" if parts.query else "")


def _codes(changes: list[Any]) -> str:
    return ", ".join(f"{c.code} ({c.severity}, {c.pages} pages)" for c in changes) or "none"


def _fingerprint(code: str, url: str) -> str:
    return hashlib.sha256(f"{code}\n{url}".encode()).hexdigest()[:32]
